// SplitMix64 (the tests' one generator) lives in the Simulation module, where it also seeds the simulator's
// streams. Re-exported so every `import TestSupport` keeps seeing it, and the simulator with it.
@_exported import Simulation
