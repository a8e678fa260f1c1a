/* marks.c — what the original STAMP's sequential build is linked with to be
 * measured beside allocstamp's apps (build-stamp edits STAMP's lib/tm.h so that
 * TM_BEGIN and TM_BEGIN_RO call stamp_mark_begin, and TM_END stamp_mark_end).
 * Everything allocated or freed between the two counts as `tx` under
 * libmemprof.so; the commits are counted and printed at exit as
 * `tx_commits_count=N` on stderr, which scripts/stamp-reference reads (the
 * key's name from harness/contract, key_names_c.h).
 * Without libmemprof.so preloaded the memprof calls are no-ops (weak). */
#include <stdio.h>

#include <memprof/memprof.h>

#include "key_names_c.h"

static unsigned long commits;

void stamp_mark_begin(void) {
  if (memprof_tx_begin) memprof_tx_begin();
}

void stamp_mark_end(void) {
  ++commits;
  if (memprof_tx_end) memprof_tx_end();
}

__attribute__((destructor)) static void stamp_mark_report(void) {
  fprintf(stderr, "%s=%lu\n", allocstamp_key_tx_commits_count, commits);
}
