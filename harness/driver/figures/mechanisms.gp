# mechanisms.gp — each allocator's time beside its measured mechanisms, as ratios to the reference (mechanisms.cpp):
# clustered bars, drawn by bars.gp (its variables).
load 'bars.gp'
