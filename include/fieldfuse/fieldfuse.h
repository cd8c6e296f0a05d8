/* placeholder: public API umbrella header */
#include "fieldfuse/status.h"
