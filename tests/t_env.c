/* tests/t_env.c: the reader of fthr's variables (lib/env.c), compiled in:
 * every documented form of every variable, hostile values, environment
 * blocks of any length through the streaming reader, and a generated
 * corpus checked against a model written from man/fthr.7's rules.
 * (tests/secure.sh runs the same reader in setuid and preloaded programs.)
 */
#include "config.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "harness.h"
#include "diag.h"
#include "env.h"

/* ---- the model: man/fthr.7, ENVIRONMENT, in plain libc ---- */

static bool all_digits(const char *v)
{
	return *v && strspn(v, "0123456789") == strlen(v);
}

/* FTHR_WAIT's knobs, from the table (wait_tune.h) */
static const struct knob {
	const char *name;
	size_t off;
	long def, lo, hi;
} knobs[] = {
#define KNOB_(n, d, l, h) { #n, offsetof(struct fthr_wait_tune, n), d, l, h },
	FTHR_WAIT_KNOBS(KNOB_)
#undef KNOB_
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))

static int *knob_at(struct fthr_wait_tune *t, size_t i)
{
	return (int *)((char *)t + knobs[i].off);
}

static void wait_defaults(struct fthr_wait_tune *t)
{
	for (size_t i = 0; i < NKNOBS; i++)
		*knob_at(t, i) = (int)knobs[i].def;
}

/* "name=N[,name=N]...", at most 255 bytes, N of 1 to 7 digits within the
 * knob's range, the ordered pairs kept; else every knob's default. */
static void model_wait(struct fthr_env *m, const char *v)
{
	struct fthr_wait_tune t;
	char *copy = strdup(v), *save = NULL, *tok;
	bool ok = strlen(v) <= 255 && (!*v || v[strlen(v) - 1] != ',') && !strstr(v, ",,") &&
		  v[0] != ',';

	ck_assert_ptr_nonnull(copy);
	wait_defaults(&t);
	for (tok = strtok_r(copy, ",", &save); ok && tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		size_t i;

		ok = eq && all_digits(eq + 1) && strlen(eq + 1) <= 7;
		for (i = 0; ok && i < NKNOBS; i++)
			if (strlen(knobs[i].name) == (size_t)(eq - tok) &&
			    !strncmp(tok, knobs[i].name, (size_t)(eq - tok)))
				break;
		ok = ok && i < NKNOBS && atol(eq + 1) >= knobs[i].lo && atol(eq + 1) <= knobs[i].hi;
		if (ok)
			*knob_at(&t, i) = (int)atol(eq + 1);
	}
	ok = ok && t.spin_min <= t.spin_start && t.spin_start <= t.spin_max &&
	     t.probe_gap_min <= t.probe_gap_max && t.nap_gap_min <= t.nap_gap_max;
	if (!ok)
		wait_defaults(&t);
	m->wait = t;
	free(copy);
}

static void model_entry(struct fthr_env *m, const char *e)
{
	const char *v = strchr(e, '=');
	size_t name = v ? (size_t)(v - e) : 0;

	if (!v)
		return;
	v++;
#define IS(n) (name == strlen(n) && !strncmp(e, n, name))
	if (IS("FTHR_PROFILE")) {
		m->profile_path[0] = '\0';
		m->path_rejected = false;
		if (!strcmp(v, "") || !strcmp(v, "0")) {
			m->modes &= ~FTHR_DIAG_PROFILE;
			return;
		}
		m->modes |= FTHR_DIAG_PROFILE;
		if (strlen(v) > FTHR_ENV_PATH_MAX)
			m->path_rejected = true;
		else if (strcmp(v, "1"))
			strcpy(m->profile_path, v);
	} else if (IS("FTHR_PROFILE_TOP")) {
		long n = all_digits(v) && strlen(v) <= 7 ? atol(v) : 0;

		m->profile_top = n >= 1 && n <= FTHR_ENV_TOP_MAX ? (int)n : FTHR_ENV_TOP_DEFAULT;
	} else if (IS("FTHR_PROFILE_SIGUSR2")) {
		m->profile_sigusr2 = !strcmp(v, "1");
	} else if (IS("FTHR_WAIT")) {
		model_wait(m, v);
	} else if (IS("FTHR_CHECK")) {
		m->modes &= ~(FTHR_DIAG_CHECK | FTHR_DIAG_ABORT);
		if (!strcmp(v, "1"))
			m->modes |= FTHR_DIAG_CHECK;
		else if (!strcmp(v, "abort"))
			m->modes |= FTHR_DIAG_CHECK | FTHR_DIAG_ABORT;
	}
#undef IS
}

static void model_defaults(struct fthr_env *m)
{
	memset(m, 0, sizeof(*m));
	m->profile_top = FTHR_ENV_TOP_DEFAULT;
	wait_defaults(&m->wait);
}

static void same(const struct fthr_env *got, const struct fthr_env *want, const char *what)
{
	for (size_t i = 0; i < NKNOBS; i++)
		ck_assert_msg(*knob_at((struct fthr_wait_tune *)&got->wait, i) ==
				      *knob_at((struct fthr_wait_tune *)&want->wait, i),
			      "%.200s: FTHR_WAIT %s got %d want %d", what, knobs[i].name,
			      *knob_at((struct fthr_wait_tune *)&got->wait, i),
			      *knob_at((struct fthr_wait_tune *)&want->wait, i));
	ck_assert_msg(got->modes == want->modes && got->profile_top == want->profile_top &&
			      got->profile_sigusr2 == want->profile_sigusr2 &&
			      got->path_rejected == want->path_rejected &&
			      !strcmp(got->profile_path, want->profile_path) && !got->secure,
		      "%.200s: got modes %d top %d sigusr2 %d rejected %d path '%.40s' secure %d; "
		      "want modes %d top %d sigusr2 %d rejected %d path '%.40s'",
		      what, got->modes, got->profile_top, got->profile_sigusr2, got->path_rejected,
		      got->profile_path, got->secure, want->modes, want->profile_top,
		      want->profile_sigusr2, want->path_rejected, want->profile_path);
}

static struct fthr_env one(const char *entry)
{
	struct fthr_env e;

	fthr_env_defaults(&e);
	fthr_env_entry(&e, entry, true);
	return e;
}

static char *repeat(char c, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);
	char *s = malloc(p + n + 1);

	ck_assert_ptr_nonnull(s);
	memcpy(s, prefix, p);
	memset(s + p, c, n);
	s[p + n] = '\0';
	return s;
}

START_TEST(documented_forms)
{
	struct fthr_env e;

	fthr_env_defaults(&e);
	ck_assert_int_eq(e.modes, 0);
	ck_assert_int_eq(e.profile_top, 10);
	ck_assert(!e.profile_sigusr2 && !e.path_rejected && !e.secure);
	ck_assert_str_eq(e.profile_path, "");

	e = one("FTHR_PROFILE=1");
	ck_assert_int_eq(e.modes, FTHR_DIAG_PROFILE);
	ck_assert_str_eq(e.profile_path, "");
	e = one("FTHR_PROFILE=/tmp/prof.%p");
	ck_assert_int_eq(e.modes, FTHR_DIAG_PROFILE);
	ck_assert_str_eq(e.profile_path, "/tmp/prof.%p");
	ck_assert_int_eq(one("FTHR_PROFILE=0").modes, 0);
	ck_assert_int_eq(one("FTHR_PROFILE=").modes, 0);
	ck_assert_int_eq(one("FTHR_PROFILE_TOP=25").profile_top, 25);
	ck_assert_int_eq(one("FTHR_PROFILE_TOP=1000000").profile_top, 1000000);
	ck_assert(one("FTHR_PROFILE_SIGUSR2=1").profile_sigusr2);
	ck_assert_int_eq(one("FTHR_CHECK=1").modes, FTHR_DIAG_CHECK);
	ck_assert_int_eq(one("FTHR_CHECK=abort").modes, FTHR_DIAG_CHECK | FTHR_DIAG_ABORT);
	ck_assert_int_eq(one("FTHR_CHECK=0").modes, 0);

	/* a later entry of the same name replaces the earlier one */
	fthr_env_defaults(&e);
	fthr_env_entry(&e, "FTHR_CHECK=abort", true);
	fthr_env_entry(&e, "FTHR_PROFILE=/a", true);
	fthr_env_entry(&e, "FTHR_CHECK=1", true);
	fthr_env_entry(&e, "FTHR_PROFILE=1", true);
	ck_assert_int_eq(e.modes, FTHR_DIAG_PROFILE | FTHR_DIAG_CHECK);
	ck_assert_str_eq(e.profile_path, "");
}
END_TEST

/* Each leaves its variable at the default. */
/* FTHR_WAIT: each documented form, and values refused whole. */
START_TEST(wait_forms)
{
	struct fthr_env e = one("FTHR_WAIT=spin_max=4096,patience=0,herd=0,nap_us=999999");
	static const char *const refused[] = {
		"spin_max=0", "spin_min=1025", "patience=-1", "patience=+1", "patience= 1",
		"patience=1 ", "patience=12345678", "patience=1,", ",patience=1",
		"patience=1,,herd=1", "patience", "patience=", "=1", "Patience=1",
		"patience=1;herd=1", "spin_start=2000", "probe_gap_min=2000",
		"nap_gap_max=8", "nap_us=1000000", "patience=1,bogus=1", "yield_long_us=0",
	};

	ck_assert_int_eq(e.wait.spin_max, 4096);
	ck_assert_int_eq(e.wait.patience, 0);
	ck_assert_int_eq(e.wait.herd, 0);
	ck_assert_int_eq(e.wait.nap_us, 999999);
	ck_assert_int_eq(e.wait.spin_min, 8);
	ck_assert_int_eq(e.wait.young, 3);
	/* a later entry replaces the whole set */
	fthr_env_entry(&e, "FTHR_WAIT=young=7", true);
	ck_assert_int_eq(e.wait.young, 7);
	ck_assert_int_eq(e.wait.spin_max, 1024);
	e = one("FTHR_WAIT=patience=5,patience=6");
	ck_assert_int_eq(e.wait.patience, 6);
	e = one("FTHR_WAIT=");
	ck_assert_int_eq(e.wait.patience, 64);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char entry[64];

		snprintf(entry, sizeof(entry), "FTHR_WAIT=%s", refused[i]);
		e = one("FTHR_WAIT=patience=5");
		fthr_env_entry(&e, entry, true);
		ck_assert_msg(e.wait.patience == 64 && e.wait.spin_max == 1024 &&
				      e.wait.spin_min == 8 && e.wait.nap_us == 20,
			      "%s: taken (patience %d)", entry, e.wait.patience);
	}
	/* 255 bytes taken, 256 refused; a cut entry refused */
	{
		char v[300] = "FTHR_WAIT=";

		for (int k = 0; k < 31; k++)
			strcat(v, "young=1,");
		strcat(v, "young=9");
		ck_assert_uint_eq(strlen(v) - 10, 255);
		e = one(v);
		ck_assert_int_eq(e.wait.young, 9);
		strcpy(v + strlen(v) - 1, "09");
		e = one(v);
		ck_assert_int_eq(e.wait.young, 3);
		fthr_env_defaults(&e);
		fthr_env_entry(&e, "FTHR_WAIT=young=5", false);
		ck_assert_int_eq(e.wait.young, 3);
	}
}
END_TEST

START_TEST(hostile_values)
{
	static const char *const tops[] = {
		"FTHR_PROFILE_TOP=",
		"FTHR_PROFILE_TOP=0",
		"FTHR_PROFILE_TOP=-5",
		"FTHR_PROFILE_TOP=+5",
		"FTHR_PROFILE_TOP= 5",
		"FTHR_PROFILE_TOP=5 ",
		"FTHR_PROFILE_TOP=0x10",
		"FTHR_PROFILE_TOP=1e3",
		"FTHR_PROFILE_TOP=1000001",
		"FTHR_PROFILE_TOP=00000005", /* eight digits */
		"FTHR_PROFILE_TOP=2147483648",
		"FTHR_PROFILE_TOP=18446744073709551621",
		"FTHR_PROFILE_TOP=99999999999999999999999999999999999999",
		"FTHR_PROFILE_TOP=\xff\xfe",
		"FTHR_PROFILE_TOP",
	};
	static const char *const checks[] = {
		"FTHR_CHECK=", "FTHR_CHECK=2", "FTHR_CHECK=abortx", "FTHR_CHECK=ABORT",
		"FTHR_CHECK=1 ", "FTHR_CHECK= 1", "FTHR_CHECK=yes", "FTHR_CHECK",
		"FTHR_CHECKX=1", "FTHR_CHECK_=abort", "FTHR_=1", "FTHR_",
	};
	char *big;
	struct fthr_env e;

	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		e = one(tops[i]);
		ck_assert_msg(e.profile_top == FTHR_ENV_TOP_DEFAULT && e.modes == 0,
			      "%s: top %d modes %d", tops[i], e.profile_top, e.modes);
	}
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		ck_assert_msg(one(checks[i]).modes == 0, "%s turned a mode on", checks[i]);
	ck_assert(!one("FTHR_PROFILE_SIGUSR2=11").profile_sigusr2);
	ck_assert(!one("FTHR_PROFILE_SIGUSR2=").profile_sigusr2);
	ck_assert(!one("FTHR_PROFILE_SIGUSR2").profile_sigusr2);
	ck_assert_int_eq(one("FTHR_PROFILE").modes, 0);

	/* the longest name kept, and one byte more: never cut down */
	big = repeat('a', FTHR_ENV_PATH_MAX, "FTHR_PROFILE=");
	e = one(big);
	ck_assert(!e.path_rejected);
	ck_assert_str_eq(e.profile_path, big + 13);
	free(big);
	big = repeat('a', FTHR_ENV_PATH_MAX + 1, "FTHR_PROFILE=");
	e = one(big);
	ck_assert(e.path_rejected && e.modes == FTHR_DIAG_PROFILE);
	ck_assert_str_eq(e.profile_path, "");
	free(big);
	big = repeat('/', 10240, "FTHR_PROFILE=");
	e = one(big);
	ck_assert(e.path_rejected && !e.profile_path[0]);
	free(big);
	/* an entry the reader had to cut: its variable keeps the default */
	e = one("FTHR_PROFILE=/tmp/x");
	fthr_env_entry(&e, "FTHR_PROFILE=/tmp/x", false);
	ck_assert(e.path_rejected && !e.profile_path[0]);
	fthr_env_defaults(&e);
	fthr_env_entry(&e, "FTHR_PROFILE_TOP=5", false);
	fthr_env_entry(&e, "FTHR_CHECK=1", false);
	fthr_env_entry(&e, "FTHR_PROFILE_SIGUSR2=1", false);
	ck_assert(e.profile_top == 10 && e.modes == 0 && !e.profile_sigusr2);
}
END_TEST

/* ---- blocks through the streaming reader ---- */

struct block {
	char *p;
	size_t len, cap;
};

static void add(struct block *b, const char *entry)
{
	size_t n = strlen(entry) + 1;

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	memcpy(b->p + b->len, entry, n);
	b->len += n;
}

/* fthr_env_scan over the block, from a file (reads of any size). */
static struct fthr_env scan(const struct block *b)
{
	char path[] = "/tmp/fthr-t_env-XXXXXX";
	struct fthr_env e;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, b->p, b->len), (ssize_t)b->len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	fthr_env_defaults(&e);
	fthr_env_scan(&e, fd);
	close(fd);
	return e;
}

static struct fthr_env model_block(const struct block *b)
{
	struct fthr_env m;

	model_defaults(&m);
	for (size_t off = 0; off < b->len; off += strlen(b->p + off) + 1)
		model_entry(&m, b->p + off);
	return m;
}

START_TEST(reader_streams_entries)
{
	struct block b = { 0 };
	char *s;

	/* entries of every length around the reader's buffers, variables
	 * straddling the 1024-byte reads */
	for (size_t n = 0; n < 1100; n += 37) {
		s = repeat('x', n, "PADDING=");
		add(&b, s);
		free(s);
		add(&b, n % 2 ? "FTHR_PROFILE_TOP=42" : "FTHR_CHECK=1");
	}
	add(&b, "");	       /* an empty entry */
	add(&b, "FTHR");       /* shorter than the prefix */
	add(&b, "FTHR_CHECK"); /* no '=' */
	s = repeat('/', 10240, "FTHR_PROFILE=");
	add(&b, s);
	free(s);
	s = repeat('7', 5000, "FTHR_PROFILE_TOP=");
	add(&b, s);
	free(s);
	add(&b, "FTHR_PROFILE_SIGUSR2=1");
	{
		struct fthr_env got = scan(&b), want = model_block(&b);

		same(&got, &want, "long block");
		ck_assert(got.path_rejected && got.profile_top == 10 && got.profile_sigusr2 &&
			  got.modes == (FTHR_DIAG_PROFILE | FTHR_DIAG_CHECK));
	}
	/* the last entry without its NUL (not an environ the kernel makes):
	 * not applied, nothing read past the end */
	b.len--;
	b.len -= strlen("FTHR_PROFILE_SIGUSR2=1");
	add(&b, "FTHR_PROFILE=/x");
	b.len--;
	{
		struct fthr_env got = scan(&b);

		ck_assert(got.path_rejected && !got.profile_sigusr2);
	}
	free(b.p);
}
END_TEST

/* ---- the generated corpus ---- */

static unsigned long rng_state;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)(rng_state >> 33) % n;
}

static const char *const names[] = {
	"FTHR_PROFILE", "FTHR_PROFILE_TOP", "FTHR_PROFILE_SIGUSR2", "FTHR_CHECK",
	"FTHR_PROFILE_TO", "FTHR_CHECKS", "FTHR_", "FTHR", "LD_PRELOAD", "FTHR_PROFILE_SIGUSR",
	"FTHR_WAIT", "FTHR_WAIT", "FTHR_WAITS",
};
static const char *const tokens[] = {
	"", "0", "1", "abort", "-", "+", " ", "%p", "/", "..", "9", "1000000", "1000001",
	"0000", "\t", "=", "\xff", "\x01", "e", "x",
	"spin_max=", "spin_min=", "spin_start=", "patience=", "herd=", "nap_us=", ",", ",",
	"spin_max=2000", "patience=0,", "spin_mi", "young=1", "probe_gap_max=", "1,",
};

/* One entry: a name (or a mangled one), '=' most of the time, a value
 * made of tokens, digit runs and random bytes, sometimes padded with one
 * repeated byte to a length around the reader's limits or up to 12 kB. */
static size_t gen_entry(char *buf, size_t cap)
{
	const char *name = names[rnd(sizeof(names) / sizeof(names[0]))];
	size_t n = (size_t)snprintf(buf, cap, "%s", name), target;
	char pad;

	if (rnd(10))
		buf[n++] = '=';
	while (n < 200 && rnd(5)) {
		switch (rnd(3)) {
		case 0:
			n += (size_t)snprintf(buf + n, cap - n, "%s",
					      tokens[rnd(sizeof(tokens) / sizeof(tokens[0]))]);
			break;
		case 1:
			for (unsigned k = rnd(12); k--;)
				buf[n++] = (char)('0' + rnd(10));
			break;
		default:
			buf[n++] = (char)(1 + rnd(255));
		}
	}
	target = rnd(4) ? 0 : rnd(2) ? 250 + rnd(80) : rnd((unsigned)cap - 1);
	pad = rnd(2) ? (char)('0' + rnd(10)) : (char)('a' + rnd(26));
	while (n < target)
		buf[n++] = pad;
	buf[n] = '\0';
	return n;
}

START_TEST(generated_corpus)
{
	static char buf[12288];
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC);
	long rounds = 0;

	for (unsigned long seed = 1; seed <= 3000; seed++) {
		struct fthr_env got, want;
		struct block b = { 0 };
		char what[64];

		rng_state = seed;
		fthr_env_defaults(&got);
		model_defaults(&want);
		/* one entry at a time, state carried over */
		for (int k = 0; k < 40; k++) {
			gen_entry(buf, sizeof(buf));
			fthr_env_entry(&got, buf, true);
			model_entry(&want, buf);
			snprintf(what, sizeof(what), "seed %lu, entry %d", seed, k);
			same(&got, &want, what);
			add(&b, buf);
		}
		/* the same entries as one block through the reader: an entry the
		 * reader cuts (longer than any valid one) keeps the default */
		got = scan(&b);
		snprintf(what, sizeof(what), "seed %lu, block", seed);
		same(&got, &want, what);
		free(b.p);
		rounds++;
		if (harness_now_ns(CLOCK_MONOTONIC) - t0 > 3000000000LL)
			break;
	}
	ck_assert_int_ge(rounds, 100);
}
END_TEST

/* This test process is not in secure-execution mode, and the reader
 * agrees with the loader's auxv. */
START_TEST(secure_mode_from_auxv)
{
	struct fthr_env e;

	ck_assert_int_eq(getauxval(AT_SECURE), 0);
	ck_assert(!fthr_env_secure());
	fthr_env_read(&e);
	ck_assert(!e.secure);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("env");
	TCase *tc = harness_tcase(s, "env", 30);

	tcase_add_test(tc, documented_forms);
	tcase_add_test(tc, wait_forms);
	tcase_add_test(tc, hostile_values);
	tcase_add_test(tc, reader_streams_entries);
	tcase_add_test(tc, generated_corpus);
	tcase_add_test(tc, secure_mode_from_auxv);
	return harness_main(s);
}
