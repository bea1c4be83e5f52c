// Clock/throttle check: the SM clock the device runs at now, from clock64 against %globaltimer
// over a short spin (no NVML needed). Compare with the nominal clock to flag throttling.
#pragma once

namespace memhier {
double measure_sm_clock_mhz(double spin_ms = 2.0);
}
