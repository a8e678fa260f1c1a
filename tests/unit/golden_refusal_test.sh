#!/bin/sh
# golden_refusal_test — asked to rewrite the golden files under CI=true,
# golden_test refuses, and refuses before writing: it runs against a scratch
# copy of tests/expected whose every file holds a sentinel, fails with the
# refusal, and leaves each sentinel as it was (a test that wrote first and
# refused after would pass a message check, not this one).
# Usage: golden_refusal_test.sh GOLDEN_TEST_BINARY EXPECTED_DIR
set -u
binary="$1" expected="$2"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
files=0
for f in "$expected"/*; do
  [ -f "$f" ] || continue
  printf 'untouched\n' > "$scratch/$(basename "$f")"
  files=$((files + 1))
done
[ "$files" -gt 0 ] || { echo "FAIL: no expected file in $expected"; exit 1; }
if CI=true ALLOCSTAMP_UPDATE_GOLDEN=1 ALLOCSTAMP_EXPECTED_DIR="$scratch" "$binary" > "$scratch.out" 2>&1; then
  echo "FAIL: golden_test passed under CI=true with ALLOCSTAMP_UPDATE_GOLDEN=1"; rm -f "$scratch.out"; exit 1
fi
if ! grep -q "ALLOCSTAMP_UPDATE_GOLDEN is refused under CI=true" "$scratch.out"; then
  echo "FAIL: no refusal in its output:"; cat "$scratch.out"; rm -f "$scratch.out"; exit 1
fi
rm -f "$scratch.out"
for f in "$scratch"/*; do
  if [ "$(cat "$f")" != "untouched" ]; then echo "FAIL: $(basename "$f") was written before the refusal"; exit 1; fi
done
echo "ok: refused, $files expected file(s) untouched"
