/* lib/version.c: fthr_version(), declared in the public fthr.h. */
#include "config.h"
#include "fthr.h"
#include "fthr_impl.h"

FTHR_HIDDEN const char *fthr_version_impl(void)
{
	return PACKAGE_VERSION;
}
FTHR_EXPORT(fthr_version, fthr_version_impl);
