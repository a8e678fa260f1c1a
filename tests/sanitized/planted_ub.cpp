// planted_ub.cpp — undefined behaviour on purpose, for the sanitized build's
// test that a UBSan report fails the program (tests/sanitized/CMakeLists.txt):
// `planted_ub 2147483647` overflows a signed int. The value comes from the
// command line, so the compiler cannot see the overflow coming.
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  int value = argc > 1 ? std::atoi(argv[1]) : 0;
  int next = value + 1;
  std::printf("%d\n", next);
  return 0;
}
