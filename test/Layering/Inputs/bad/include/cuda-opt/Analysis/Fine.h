#include "cuda-opt/Frontend/SourceParser.h"
