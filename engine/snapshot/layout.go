package snapshot

import (
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/internal/regfile"
)

// Logs and in-pod command outputs are filed by pod (docs/snapshot-layout.md).
// Layout v2 names the namespace:
//
//	logs/<namespace>/<pod>/<container>[.previous].log
//	exec/<namespace>/<pod>/<name>.txt
//
// Layout v1, which is still read, does not:
//
//	logs/<pod>/<container>[.previous].log, logs/<pod>[.previous].log
//	exec/<pod>/<name>.txt
//
// The depth tells them apart: a v1 pod folder holds files, a v2 namespace
// folder holds folders. A v1 folder applies only to the pod of that name
// when no two pods in the snapshot share it; two jobs in different
// namespaces often have pods of the same name (team-a/train-master-0 and
// team-b/train-master-0), and guessing would give one job the other's logs.

// podKey names a pod in layout v2.
type podKey struct{ namespace, name string }

// podFiles indexes the logs and exec folders of a snapshot.
type podFiles struct {
	logs map[podKey][]LogRef
	exec map[podKey]string
	// v1 entries, by pod name, until resolve decides whom they belong to.
	logsV1 map[string][]LogRef
	execV1 map[string]string
	// ambiguous holds the v1 pod names that several namespaces use; their
	// folders are not used.
	ambiguous map[string]bool
}

func newPodFiles() podFiles {
	return podFiles{
		logs: map[podKey][]LogRef{}, exec: map[podKey]string{},
		logsV1: map[string][]LogRef{}, execV1: map[string]string{},
		ambiguous: map[string]bool{},
	}
}

// PodLogs returns the log files of a pod, sorted by container with a
// container's previous instance before its current one. Files filed under
// the namespace (layout v2) win; a v1 folder named after the pod is used
// only when no other pod of the snapshot has that name.
func (s *Snapshot) PodLogs(namespace, pod string) []LogRef {
	if refs := s.files.logs[podKey{namespace, pod}]; len(refs) > 0 {
		return refs
	}
	if s.files.ambiguous[pod] {
		return nil
	}
	return s.files.logsV1[pod]
}

// PodExec returns the folder of a pod's in-pod command outputs (its path
// in the snapshot, for Open and FS), by the same rules as PodLogs.
func (s *Snapshot) PodExec(namespace, pod string) (dir string, ok bool) {
	if d, ok := s.files.exec[podKey{namespace, pod}]; ok {
		return d, true
	}
	if s.files.ambiguous[pod] {
		return "", false
	}
	d, ok := s.files.execV1[pod]
	return d, ok
}

// readLogs indexes the logs folder of either layout.
func (s *Snapshot) readLogs() {
	entries, err := fs.ReadDir(s.fsys, "logs")
	if err != nil {
		s.warn("logs: %v", err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if !e.IsDir() {
			if !e.Type().IsRegular() {
				s.skipSpecial(path.Join("logs", name), e.Type())
				continue
			}
			// logs/<pod>.log: v1 shorthand for the pod's main container.
			if strings.HasSuffix(name, ".log") {
				pod, prev := logName(name)
				s.files.logsV1[pod] = append(s.files.logsV1[pod], LogRef{Previous: prev, Rel: path.Join("logs", name)})
			}
			continue
		}
		sub := path.Join("logs", name)
		files, dirs, err := s.listFolder(sub)
		if err != nil {
			s.warn("%s: %v", sub, err)
			continue
		}
		// logs/<pod>/<container>.log (v1)
		for _, f := range files {
			if strings.HasSuffix(f, ".log") {
				s.files.logsV1[name] = append(s.files.logsV1[name], containerLog(sub, f))
			}
		}
		// logs/<namespace>/<pod>/<container>.log (v2)
		for _, pod := range dirs {
			podDir := path.Join(sub, pod)
			pf, _, err := s.listFolder(podDir)
			if err != nil {
				s.warn("%s: %v", podDir, err)
				continue
			}
			k := podKey{name, pod}
			for _, f := range pf {
				if strings.HasSuffix(f, ".log") {
					s.files.logs[k] = append(s.files.logs[k], containerLog(podDir, f))
				}
			}
		}
	}
	for _, refs := range s.files.logs {
		sortLogs(refs)
	}
	for _, refs := range s.files.logsV1 {
		sortLogs(refs)
	}
}

// readExec indexes the exec folder of either layout.
func (s *Snapshot) readExec() {
	entries, err := fs.ReadDir(s.fsys, "exec")
	if err != nil {
		s.warn("exec: %v", err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if !e.IsDir() {
			if !e.Type().IsRegular() {
				s.skipSpecial(path.Join("exec", name), e.Type())
			}
			continue
		}
		sub := path.Join("exec", name)
		files, dirs, err := s.listFolder(sub)
		if err != nil {
			s.warn("%s: %v", sub, err)
			continue
		}
		if len(files) > 0 {
			s.files.execV1[name] = sub
		}
		for _, pod := range dirs {
			s.files.exec[podKey{name, pod}] = path.Join(sub, pod)
		}
	}
}

// listFolder returns the names of the regular files and of the folders in
// the snapshot's folder rel, hidden ones left out. Anything else, a link or
// a pipe, is skipped with a warning naming it: never followed, never
// opened, never silently left out.
func (s *Snapshot) listFolder(rel string) (files, dirs []string, err error) {
	entries, err := fs.ReadDir(s.fsys, rel)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.IsDir():
			dirs = append(dirs, e.Name())
		case e.Type()&fs.ModeType == 0:
			files = append(files, e.Name())
		default:
			s.skipSpecial(path.Join(rel, e.Name()), e.Type())
		}
	}
	return files, dirs, nil
}

// skipSpecial warns about an entry under logs/ or exec/ that is not a
// regular file or folder.
func (s *Snapshot) skipSpecial(rel string, mode fs.FileMode) {
	if mode&fs.ModeSymlink != 0 {
		s.warn("%s: symbolic link, not followed", rel)
		return
	}
	s.warn("%s: %s, skipped", rel, regfile.Describe(mode))
}

// logName splits "<name>[.previous].log".
func logName(file string) (name string, previous bool) {
	name = strings.TrimSuffix(file, ".log")
	prev := strings.HasSuffix(name, ".previous")
	return strings.TrimSuffix(name, ".previous"), prev
}

func containerLog(dir, file string) LogRef {
	c, prev := logName(file)
	return LogRef{Container: c, Previous: prev, Rel: path.Join(dir, file)}
}

func sortLogs(refs []LogRef) {
	sort.Slice(refs, func(a, b int) bool {
		if refs[a].Container != refs[b].Container {
			return refs[a].Container < refs[b].Container
		}
		return refs[a].Previous && !refs[b].Previous
	})
}

// resolvePodFiles decides, once every object is read, which v1 folders
// apply: a v1 folder is used for the pod of that name unless pods of that
// name live in more than one namespace, which is a warning naming the
// folder and the namespaces.
func (s *Snapshot) resolvePodFiles() {
	namespaces := map[string]map[string]bool{}
	for _, o := range s.Objects {
		if o.Kind != "Pod" || o.Group != "" {
			continue
		}
		if namespaces[o.Name] == nil {
			namespaces[o.Name] = map[string]bool{}
		}
		namespaces[o.Name][o.Namespace] = true
	}
	check := func(pod string, rels []string) {
		ns := namespaces[pod]
		if len(ns) < 2 {
			return
		}
		s.files.ambiguous[pod] = true
		list := make([]string, 0, len(ns))
		for n := range ns {
			if n == "" {
				n = `""`
			}
			list = append(list, n)
		}
		sort.Strings(list)
		for _, rel := range rels {
			s.warn("%s: layout v1 names no namespace, and pods called %s are in namespaces %s; not used (file it as %s)",
				rel, pod, strings.Join(list, ", "), v2Hint(rel, pod))
		}
	}
	for pod, refs := range s.files.logsV1 {
		seen := map[string]bool{}
		var rels []string
		for _, r := range refs {
			rel := r.Rel
			if r.Container != "" {
				rel = path.Dir(r.Rel) // one warning per folder
			}
			if !seen[rel] {
				seen[rel] = true
				rels = append(rels, rel)
			}
		}
		check(pod, rels)
	}
	for pod := range s.files.execV1 {
		check(pod, []string{path.Join("exec", pod)})
	}
}

// v2Hint says where a v1 file or folder belongs in layout v2.
func v2Hint(rel, pod string) string {
	top, _, _ := strings.Cut(rel, "/")
	if strings.HasSuffix(rel, ".log") {
		return top + "/<namespace>/" + pod + "/<container>.log"
	}
	return top + "/<namespace>/" + pod + "/"
}
