// The emulator's functions, compiled once into tj_core.o (see TJ_CORE in tj_cuda.h).
#define TJ_CUDA_CORE_BUILD 1
#include "tj_cuda.h"
