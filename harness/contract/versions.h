/* versions.h — the versions of the two formats allocstamp writes, in one place:
 * memprof's record lines (Contract 1; the `format` key of every @memprof
 * record) and the results folder's files (Contract 4; the `schema` line of
 * runs.csv, series.csv, summary.csv). A reader refuses a version it does not
 * know. Plain C: memprof includes it inside malloc. */
#ifndef ALLOCSTAMP_CONTRACT_VERSIONS_H
#define ALLOCSTAMP_CONTRACT_VERSIONS_H

#define ALLOCSTAMP_RECORD_FORMAT 1
#define ALLOCSTAMP_RESULTS_SCHEMA 9

#endif
