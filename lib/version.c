/* lib/version.c: fthr_version(), declared in the public fthr.h. */
#include "config.h"
#include "fthr.h"

__attribute__((visibility("default"))) const char *fthr_version(void)
{
	return PACKAGE_VERSION;
}
