package probe

import (
	"path"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/evidence"
)

// checkpointFlags are the arguments trainers take for the folder they save
// checkpoints into, when that folder holds the checkpoints directly:
// Hugging Face's --output_dir (checkpoint-N), Megatron's --save
// (iter_N), DeepSpeed examples' --checkpoint_dir / --save_dir, verl's
// trainer.default_local_dir (global_step_N), fairseq's
// checkpoint.save_dir. Frameworks that nest checkpoints deeper (Lightning's
// default_root_dir/lightning_logs/version_N/checkpoints) are left to
// --checkpoint-dir.
var checkpointFlags = []string{
	"--checkpoint-dir", "--checkpoint_dir", "--checkpoints-dir", "--checkpoints_dir",
	"--ckpt-dir", "--ckpt_dir", "--save-dir", "--save_dir", "--output_dir", "--output-dir", "--save",
	"trainer.default_local_dir", "checkpoint.save_dir", "checkpoint_dir", "ckpt_dir",
}

// checkpointEnv are environment variables naming that folder.
var checkpointEnv = []string{"CHECKPOINT_DIR", "CHECKPOINTS_DIR", "CKPT_DIR", "CHECKPOINT_PATH", "SAVE_DIR"}

// CheckpointDirOf returns the checkpoint folder a job's training command
// or environment names plainly: an absolute path, with no variable to
// expand. It returns "" when none does, or when they disagree.
func CheckpointDirOf(job *evidence.Job) string {
	found := map[string]bool{}
	var words []string
	if job.Spec.Entrypoint != "" {
		words = append(words, splitShell(job.Spec.Entrypoint)...)
	}
	for _, g := range job.Replicas {
		for _, c := range g.Template.Containers {
			words = append(words, commandWords(c)...)
			for _, k := range checkpointEnv {
				if v := c.Env[k]; plain(v) {
					found[clean(v)] = true
				}
			}
		}
	}
	for i, w := range words {
		for _, f := range checkpointFlags {
			switch {
			case strings.HasPrefix(w, f+"="):
				if v := strings.TrimPrefix(w, f+"="); plain(v) {
					found[clean(v)] = true
				}
			case w == f && strings.HasPrefix(f, "-") && i+1 < len(words):
				if v := words[i+1]; plain(v) {
					found[clean(v)] = true
				}
			}
		}
	}
	if len(found) != 1 {
		return ""
	}
	dirs := make([]string, 0, 1)
	for d := range found {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs[0]
}

func plain(v string) bool {
	return strings.HasPrefix(v, "/") && !strings.ContainsAny(v, "$`*?{}")
}

func clean(v string) string { return path.Clean(v) }

// commandWords are a container's command and args; a `sh -c SCRIPT`
// script is split into words as the shell would.
func commandWords(c evidence.ContainerSpec) []string {
	argv := append(append([]string{}, c.Command...), c.Args...)
	var out []string
	for i, a := range argv {
		out = append(out, a)
		if i > 0 && (a == "-c" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c")) {
			for _, s := range argv[i+1:] {
				if s != "--" {
					out = append(out, splitShell(s)...)
				}
			}
			return out
		}
	}
	return out
}

// splitShell splits a command line into words: blanks separate, quotes
// group, and ; && | end nothing in particular (flags are looked up by
// name, so a pipeline's words are all searched).
func splitShell(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == ';':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
