// liblo (Debian: liblo-dev): OSC messages, bundles and method dispatch.
#include <lo/lo.h>
