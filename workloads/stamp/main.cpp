// main.cpp — the stamp binary: STAMP's transactional applications, run as
// `stamp <app> --threads N --size tiny|small|medium|large --seed S --tm M
// [app options]` (Contract 3). small is STAMP's simulator input, large its
// non-simulator input. Each app registers itself beside its body (see app.h).
#include "apps.h"

int main(int argc, char** argv) {
  return allocstamp::workload::run_app(
      "stamp", "[--threads N] [--size tiny|small|medium|large] [--seed S] [--tm ml_wt|gl_wt|serialirr|lock|seq]", argc,
      argv);
}
