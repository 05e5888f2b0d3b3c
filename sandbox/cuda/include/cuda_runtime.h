// Under the emulation, <cuda_runtime.h> is the emulator's header.
#pragma once
#include "../tj_cuda.h"
