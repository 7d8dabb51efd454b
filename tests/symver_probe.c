/* tests/symver_probe.c: for each NAME VERSION pair on the command line (or
 * "NAME@VERSION"/"NAME@@VERSION" words on stdin), look the versioned name up
 * the way a chaining interposer does, dlvsym(RTLD_DEFAULT, NAME, VERSION),
 * and print "NAME@VERSION FILE", FILE the object that defines what it found
 * (or "none"). tests/symbols.sh runs it with fthr preloaded. Not linked
 * with fthr, no threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void probe(const char *name, const char *ver)
{
	void *f = dlvsym(RTLD_DEFAULT, name, ver);
	Dl_info di;

	printf("%s@%s %s\n", name, ver,
	       f && dladdr(f, &di) && di.dli_fname ? di.dli_fname : "none");
}

int main(void)
{
	char line[512];

	while (fgets(line, sizeof line, stdin)) {
		char *at = strchr(line, '@'), *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		if (!at)
			continue;
		*at++ = 0;
		if (*at == '@')
			at++;
		probe(line, at);
	}
	return 0;
}
