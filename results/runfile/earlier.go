package runfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/internal/safefs"
	"github.com/tmpprobe/tmpprobe/results"
)

// An earlier run widens a new run's intervals (results.MeasureBetween), so
// a run planted beside it could make them say anything: ±424453%, or no
// caution at all. LoadEarlier therefore reads only what nobody but root
// and the user who ran tmpprobe could have put there: a directory that
// passes safefs.CheckDir and that no other user can write (sticky or not:
// in /tmp anyone may add a run), run directories and run.json files owned
// by them and not writable by others, opened without following a link,
// one file read once whatever its hard links, and none larger than
// maxEarlierFile.

// maxEarlierFile bounds one earlier run.json: a run of both labs in both
// runtimes is about 8 MiB, and reading ten runs of the largest allowed
// takes seconds, not minutes.
const maxEarlierFile = 32 << 20

// maxUnreadNamed is how many runs that were not read are named one by
// one; the rest are counted.
const maxUnreadNamed = 3

// LoadEarlier reads the complete saved runs in dir's subdirectories that
// are replicates, newest run.json first, up to limit: the runs a new run's
// spread between runs is measured against (results.MeasureBetween).
// notReplicate says why a run is not one ("" when it is); those are
// returned in leftOut, with why, and count against no limit. skip is the
// run directory being written now, which replaces what is there.
// Subdirectories without a run.json are not runs and are passed over;
// what looks like a run but is not read (not trusted, too large, broken)
// is said in unread, at most maxUnreadNamed of them by name. A dir that
// others can write is not read at all: err says why.
func LoadEarlier(dir, skip string, notReplicate func(*results.Run) string, limit int) (runs []results.EarlierRun, leftOut []results.LeftOut, unread []string, err error) {
	df, err := openHistoryDir(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	defer df.Close()
	names, err := df.Readdirnames(-1)
	if err != nil {
		return nil, nil, nil, err
	}
	type candidate struct {
		name string
		mod  time.Time
	}
	var cands []candidate
	var refused []string
	var skipSt unix.Stat_t
	skipOK := skip != "" && unix.Stat(skip, &skipSt) == nil
	seen := map[[2]uint64]bool{}
	for _, name := range names {
		if strings.HasPrefix(name, ".") {
			continue // a run directory being staged (see WriteRunDir), or not a run
		}
		var st, js unix.Stat_t
		if unix.Fstatat(int(df.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue // not a directory: a symlink to one is not followed
		}
		if skipOK && st.Dev == skipSt.Dev && st.Ino == skipSt.Ino {
			continue
		}
		err := unix.Fstatat(int(df.Fd()), name+"/run.json", &js, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		key := [2]uint64{uint64(js.Dev), js.Ino}
		switch {
		case err != nil:
			refused = append(refused, fmt.Sprintf("%s: %v", name, err))
		case js.Mode&unix.S_IFMT != unix.S_IFREG:
			refused = append(refused, name+": run.json is not a regular file (a link is not followed)")
		case untrusted(&st) != "":
			refused = append(refused, name+": "+untrusted(&st))
		case untrusted(&js) != "":
			refused = append(refused, name+": run.json "+untrusted(&js))
		case js.Size > maxEarlierFile:
			refused = append(refused, fmt.Sprintf("%s: run.json is %d MiB, larger than a run's %d", name, js.Size>>20, maxEarlierFile>>20))
		case seen[key]:
			refused = append(refused, name+": run.json is another run's, hard-linked")
		default:
			seen[key] = true
			cands = append(cands, candidate{name, time.Unix(js.Mtim.Unix())})
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.mod.Compare(a.mod) })
	for _, c := range cands {
		if len(runs) == limit {
			break
		}
		run, err := readEarlier(df, c.name)
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		if !run.Complete {
			continue
		}
		if why := notReplicate(run); why != "" {
			leftOut = append(leftOut, results.LeftOut{Name: escape.Line(c.name), Reason: why})
			continue
		}
		runs = append(runs, results.EarlierRun{Name: escape.Line(c.name), Run: run})
	}
	return runs, leftOut, countUnread(refused), nil
}

// openHistoryDir opens dir when only trusted users can add to it.
func openHistoryDir(dir string) (*os.File, error) {
	df, err := safefs.OpenSafeDir(dir)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(df.Fd()), &st); err != nil {
		df.Close()
		return nil, err
	}
	if st.Mode&0o022 != 0 {
		df.Close()
		return nil, fmt.Errorf("%s is writable by other users (mode %04o), who could plant runs there: its runs are not read (save runs side by side in a directory of your own)", dir, st.Mode&0o7777)
	}
	return df, nil
}

// untrusted says why a file another user could have put or changed is
// not read ("" for one owned by root or the user who ran tmpprobe and
// writable by nobody else).
func untrusted(st *unix.Stat_t) string {
	switch {
	case !safefs.Trusted(st.Uid):
		return fmt.Sprintf("is uid %d's", st.Uid)
	case st.Mode&0o022 != 0:
		return fmt.Sprintf("is writable by others (mode %04o)", st.Mode&0o7777)
	}
	return ""
}

// readEarlier reads name/run.json below df, following no link.
func readEarlier(df *os.File, name string) (*results.Run, error) {
	rd, err := unix.Openat(int(df.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	defer unix.Close(rd)
	fd, err := unix.Openat(rd, "run.json", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s/run.json: %v", name, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(name, "run.json"))
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxEarlierFile || untrusted(&st) != "" {
		return nil, fmt.Errorf("%s/run.json changed while it was being opened", name)
	}
	run, err := ReadRun(f)
	if err != nil {
		return nil, fmt.Errorf("%s/run.json: %w", name, err)
	}
	return run, nil
}

// countUnread names the first maxUnreadNamed runs not read and counts the
// rest: ten thousand planted directories are one line, not ten thousand.
func countUnread(refused []string) []string {
	if len(refused) <= maxUnreadNamed {
		return refused
	}
	return append(refused[:maxUnreadNamed:maxUnreadNamed], fmt.Sprintf("and %d more", len(refused)-maxUnreadNamed))
}
