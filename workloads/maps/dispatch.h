// dispatch.h — from the run-time choices (--key, --container) to one compiled
// instantiation of an app: App<Adapter>::run(config, result) for the chosen
// key/value types and container.
#pragma once
#include <cstdint>
#include <string>

#include "containers.h"
#include "run.h"

namespace allocstamp::maps {

template <template <typename> class App>
bool dispatch(const Config& config, Result& result) {
  auto with_types = [&]<typename K, typename V>() {
    bool known = with_container<K, V>(config.container, [&]<typename Adapter>() { App<Adapter>::run(config, result); });
    if (!known) result.problem = "unknown container '" + std::string(config.container) + "'";
    return known;
  };
  if (config.key == "u32") return with_types.template operator()<uint32_t, uint32_t>();
  if (config.key == "u64") return with_types.template operator()<uint64_t, uint64_t>();
  if (config.key == "string") return with_types.template operator()<std::string, uint64_t>();
  result.problem = "unknown key type '" + config.key + "'";
  return false;
}

}  // namespace allocstamp::maps
