# elements.gp — the map workloads' bytes and time per element (elements.cpp):
# clustered bars, drawn by bars.gp (its variables).
load 'bars.gp'
