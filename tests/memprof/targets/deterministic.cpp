// deterministic — a single-threaded C++ program whose allocations do not depend
// on the allocator: std::map, std::vector growth, strings, a scoped region and
// a metric. Every allocator must give identical counts and requested peak.
#include <memprof/memprof.h>

#include <map>
#include <string>
#include <vector>

int main() {
  memprof::phase_begin();
  std::map<int, std::string> names;
  {
    memprof::scope s("fill");
    for (int i = 0; i < 5000; ++i) names[(i * 7919) % 10007] = "name-" + std::to_string(i) + std::string(i % 40, 'x');
  }
  std::vector<long> numbers;
  for (int i = 0; i < 100000; ++i) numbers.push_back(i);
  for (int i = 0; i < 2500; ++i) names.erase((i * 7919) % 10007);
  long sum = 0;
  for (auto& [k, v] : names) sum += k + long(v.size());
  memprof::metric("checksum", sum);
  memprof::phase_end();
  return sum > 0 ? 0 : 1;
}
