// process_tree.h — what bench, a subreaper of its children, knows of the
// processes a program it ran left behind: its own children, read from /proc,
// and the orphans (a daemon that left its process group, a background job of
// a killed shell), which come back to bench when their parents end.
#pragma once
#include <sys/types.h>

#include <set>

namespace allocstamp {

// bench's children (field 4 of each process's stat in /proc: its parent).
std::set<pid_t> children_of_bench();

// Kills and reaps bench's children that are not in `before`, and theirs in
// turn (they come to bench as their parents die): nothing of a program bench
// ran outlives it or writes after it (a simulated run's forked valgrind would
// rewrite its output at exit). bench must be their subreaper
// (PR_SET_CHILD_SUBREAPER) for orphans to come back to it.
void kill_orphans(const std::set<pid_t>& before);

}  // namespace allocstamp
