/* memprof_limits.h — what memprof's options can hold of what bench hands it:
 * a path in MEMPROF_OUT, MEMPROF_CALLSITES or MEMPROF_TRACE has at most
 * ALLOCSTAMP_MEMPROF_PATH_BYTES - 1 bytes (memprof keeps it in a fixed buffer,
 * read without allocating). bench refuses a longer one before anything runs.
 * Plain C: memprof includes it inside malloc. */
#ifndef ALLOCSTAMP_CONTRACT_MEMPROF_LIMITS_H
#define ALLOCSTAMP_CONTRACT_MEMPROF_LIMITS_H

#define ALLOCSTAMP_MEMPROF_PATH_BYTES 512

#endif
