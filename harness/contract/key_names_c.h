/* key_names_c.h — key_names.h for C: allocstamp_key_NAME is the name of
 * keys.def's key NAME (allocstamp_key_tx_commits_count is "tx_commits_count"),
 * so a C program that reports a key by name cannot spell one the table lacks.
 * C++ writes keys::NAME (key_names.h). */
#ifndef ALLOCSTAMP_KEY_NAMES_C_H
#define ALLOCSTAMP_KEY_NAMES_C_H

#define KEY(name, unit, type, bound, source, kind, group, meaning) static const char allocstamp_key_##name[] = #name;
#include "keys.def"
#undef KEY

#endif /* ALLOCSTAMP_KEY_NAMES_C_H */
