# ladder.gp — the memory ladder of each workload: requested, usable, heap, RSS, PSS, what the allocator holds (ladder.cpp):
# clustered bars, drawn by bars.gp (its variables).
load 'bars.gp'
