// run_row.h — a run's row of runs.csv: every value the run gave (memprof's
// record, the program's metrics, the simulator's figures, wait4's and bench's
// own), each in its declared type, in a folder's columns; a value that has no
// column there goes to extra. The results folder (results_folder.h) writes it.
#pragma once
#include <string>

#include "model/run.h"
#include "results/csv.h"
#include "run/executor.h"
#include "run/records.h"
#include "run/environment.h"

namespace allocstamp {

struct RunRow {
  Status status;    // the run's, or failed where a value is not of its column's declared type
  Records records;  // the run's records, each refused field blanked (the side tables are written from them)
  CsvRow row;       // in the folder's columns
};

// The row of `run` in `columns` (this bench's, or a resumed older folder's).
// A refused value is left out and named in extra's failure. `log`: the run's
// log, relative to the folder (a skipped run, which never started, names none).
RunRow run_row(const Run& run, const RunSetting& setting, Status status, const Finished& f, const Records& given,
               const CsvRow& columns, const std::string& log);

}  // namespace allocstamp
