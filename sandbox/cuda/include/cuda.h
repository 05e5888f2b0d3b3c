#pragma once
#include "../tj_cuda.h"
