// A lower stage reaching up: Analysis may not include the Measure stage.
#include "cuda-opt/Analysis/Fine.h"
#include "cuda-opt/Measure/Measure.h"
