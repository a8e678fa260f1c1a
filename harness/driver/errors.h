// errors.h — the driver's typed errors. Each says what went wrong and how to
// fix it; main catches them once: UsageError exits 2 before anything runs.
#pragma once
#include <stdexcept>
#include <string>

namespace allocstamp {

class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& what, const std::string& fix) : std::runtime_error(what + " — " + fix) {}
};

class RunError : public std::runtime_error {
 public:
  RunError(const std::string& what, const std::string& fix) : std::runtime_error(what + " — " + fix) {}
};

}  // namespace allocstamp
