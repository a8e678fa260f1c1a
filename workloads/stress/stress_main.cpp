// stress_main.cpp — the `stress` binary: the classic allocator stress programs,
// run as `stress <app> --threads N --size tiny|small|medium|large --seed S
// [app options]` (Contract 3). tiny is for tests, small about 0.2–1 s at one
// thread here, medium and large the originals' own parameters. Each app
// registers itself in its own file (stress.h).
#include "apps.h"

int main(int argc, char** argv) {
  return allocstamp::workload::run_app("stress", "[--threads N] [--size tiny|small|medium|large] [--seed S]", argc,
                                       argv);
}
