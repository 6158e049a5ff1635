// The knobs of module/ABI.md and the values the module accepts, so that a sweep can refuse
// a bad knob or value before it needs the module, and a flush knob on a kernel without
// flush control before any run. Knobs are still discovered from the module's directory:
// one this list lacks (a newer module's) is checked by the module alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memcg_statctl {

// The knobs of module/ABI.md, in its order.
std::vector<std::string> known_knobs();

// What module/ABI.md says a knob accepts ("0 or 1"); nullopt for a knob it does not list.
std::optional<std::string_view> knob_accepted_values(std::string_view knob);

// "flush_mode rejects 'nevr': kernel, threshold, always or never" when the module would
// refuse the write of `value` (module/ABI.md); nullopt when it would take it or when the
// knob is not in known_knobs().
std::optional<std::string> knob_value_error(std::string_view knob, std::string_view value);

// Whether writing `value` asks for something the kernel does not do by itself, which
// needs flush control (a flush_mode other than kernel, any flush_threshold, ...).
bool needs_flush_control(std::string_view knob, std::string_view value);

} // namespace memcg_statctl
