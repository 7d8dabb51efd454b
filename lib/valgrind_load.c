/* lib/valgrind_load.c: loads fthr's wrappers for Valgrind's thread
 * checkers (libfthr-valgrind.so, lib/diag_valgrind.c) when Helgrind or DRD
 * runs the process, and only then.
 *
 * Valgrind applies a function wrapper under every tool wherever an object
 * that defines it is loaded, and the wrappers of a library loaded later
 * too. Kept apart and loaded here, they leave the program's calls as they
 * are natively and under the other tools (memcheck, callgrind,
 * cachegrind), whose profiles then count fthr's own instructions alone.
 * Both checkers preload an object of theirs ("vgpreload_helgrind-*.so",
 * "vgpreload_drd-*.so") before any constructor runs; the wrappers'
 * library is looked for beside libfthr's own file (installed together,
 * and together in the build tree's lib/.libs).
 */
#include "config.h"
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/valgrind.h>
#include "fthr_impl.h"

#define WRAPPERS "libfthr-valgrind.so"

static int is_thread_checker(struct dl_phdr_info *i, size_t size, void *arg)
{
	(void)size, (void)arg;
	return strstr(i->dlpi_name, "/vgpreload_helgrind-") ||
	       strstr(i->dlpi_name, "/vgpreload_drd-");
}

static void say(const char *a, const char *b)
{
	if (write(2, a, strlen(a)) < 0 || write(2, b, strlen(b)) < 0 || write(2, "\n", 1) < 0)
		return;
}

__attribute__((constructor)) static void valgrind_load(void)
{
	char path[4096];
	const char *self = "", *slash;
	size_t dir = 0;
	Dl_info di;

	if (!RUNNING_ON_VALGRIND || !dl_iterate_phdr(is_thread_checker, NULL))
		return;
	if (dladdr((void *)valgrind_load, &di) && di.dli_fname)
		self = di.dli_fname;
	if ((slash = strrchr(self, '/')) && slash - self + 1 + sizeof(WRAPPERS) <= sizeof(path))
		dir = (size_t)(slash - self) + 1; /* else the loader's search path */
	memcpy(path, self, dir);
	memcpy(path + dir, WRAPPERS, sizeof(WRAPPERS));
	if (!dlopen(path, RTLD_NOW | RTLD_LOCAL))
		say("fthr: the thread checker cannot see fthr's locks: ", dlerror());
}
