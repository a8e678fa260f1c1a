# aborts.gp — the transactions' abort rate per thread count (aborts.cpp):
# clustered bars, drawn by bars.gp (its variables).
load 'bars.gp'
