/* privdrop.c - the drop to an ordinary user after attaching; see privdrop.h. */
#include "cli/privdrop.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int priv_lookup(const char *cmd, const char *name, struct priv_user *u)
{
	*u = (struct priv_user){0};
	if (!name)
		return 0;
	errno = 0;
	struct passwd *pw = name[0] ? getpwnam(name) : NULL;
	if (!pw) {
		fprintf(stderr, "xiotop %s: --user %s: %s\n", cmd, name,
		        errno ? strerror(errno) : "no such user");
		return 2;
	}
	if (pw->pw_uid == 0) {
		fprintf(stderr, "xiotop %s: --user %s: that is root, nothing would be dropped\n",
		        cmd, name);
		return 2;
	}
	*u = (struct priv_user){.name = name, .uid = pw->pw_uid, .gid = pw->pw_gid};
	return 0;
}

bool priv_no_capabilities(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	if (syscall(SYS_capget, &hdr, data))
		return false;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return false;
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1)
			return false;
	return true;
}

/* path to the user, unless it is a symlink or missing (missing: nothing to give). */
static int give(const char *path, const struct priv_user *u)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	int rc = fchown(fd, u->uid, u->gid);
	close(fd);
	return rc;
}

int priv_drop(const char *cmd, const struct priv_user *u, const char *const *paths, size_t n)
{
	if (!u->name)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (paths[i] && give(paths[i], u)) {
			fprintf(stderr, "xiotop %s: --user %s: cannot give %s to it: %s\n", cmd,
			        u->name, paths[i], strerror(errno));
			return 1;
		}
	/* the uid last: it takes the capabilities that setgroups and setresgid need */
	if (initgroups(u->name, u->gid) || setresgid(u->gid, u->gid, u->gid) ||
	    setresuid(u->uid, u->uid, u->uid)) {
		fprintf(stderr, "xiotop %s: --user %s: cannot become it: %s\n", cmd, u->name,
		        strerror(errno));
		return 1;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || !priv_no_capabilities() || setuid(0) == 0 ||
	    geteuid() != u->uid) {
		fprintf(stderr, "xiotop %s: --user %s: capabilities remain after the drop\n", cmd,
		        u->name);
		return 1;
	}
	fprintf(stderr, "xiotop %s: attached; now user %s (uid %u, gid %u), no capabilities\n", cmd,
	        u->name, (unsigned)u->uid, (unsigned)u->gid);
	return 0;
}
