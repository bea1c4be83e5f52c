// One benchmark of a level-style family (bench/levels/levels.hpp: dsmem, async_copy, host, peer,
// l2_slices, l2_persist): the parameters of its name become the LevelRequest the backend answers,
// its counters and trace go into the output, its time is the manual time. Defined in levels.cpp.
#pragma once
#include "common/bench_name.hpp"

namespace memhier {

void register_level(const BenchName& n);

}  // namespace memhier
