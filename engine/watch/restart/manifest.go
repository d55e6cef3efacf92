package restart

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/traindoc/traindoc/engine/watch"
)

// Resume says how a recreated job is told where to resume from: words
// appended to the training command of every replica, and environment
// variables set in every replica's training container. Both empty
// recreates the job as it was (for trainers that resume by themselves).
type Resume struct {
	Args *Words
	Env  []EnvTemplate
}

// EnvTemplate is one --resume-env NAME=TEMPLATE.
type EnvTemplate struct {
	Name  string
	Value *Words
}

// ParseEnv parses NAME=TEMPLATE. The value is one string however many
// blanks it holds.
func ParseEnv(s string) (EnvTemplate, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok || !validEnvName(name) {
		return EnvTemplate{}, fmt.Errorf("--resume-env %q: want NAME=TEMPLATE", s)
	}
	w, err := parseWord(val)
	if err != nil {
		return EnvTemplate{}, err
	}
	return EnvTemplate{Name: name, Value: w}, nil
}

func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Data returns the template data of a request.
func Data(req watch.RestartRequest) TemplateData {
	d := TemplateData{Kind: req.Kind, Namespace: req.Namespace, Name: req.Name, Attempt: req.Attempt}
	if req.Checkpoint != nil {
		d.Checkpoint, d.Step = req.Checkpoint.Path, req.Checkpoint.Step
	}
	return d
}

// Metadata the API server owns: a recreated object must not carry it.
var serverMetadata = []string{
	"resourceVersion", "uid", "creationTimestamp", "managedFields", "generation",
	"deletionTimestamp", "deletionGracePeriodSeconds", "selfLink",
	// A controller adds its finalizers again; a stale one would block the
	// next deletion when the controller is gone.
	"finalizers",
}

// Build returns the object to create for a restart: the stored object
// without status and server-owned metadata, with its labels and
// annotations, annotated with the attempt and the failure it answers, and
// with the resume words and variables added to every replica's training
// container.
func Build(req watch.RestartRequest, r Resume) (*unstructured.Unstructured, error) {
	if req.Object == nil {
		return nil, fmt.Errorf("%s: no stored object to recreate: %w", req.Job, watch.ErrNotRestartable)
	}
	obj, err := deepCopy(req.Object)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	delete(obj, "status")
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		return nil, fmt.Errorf("%s: stored object has no metadata: %w", req.Job, watch.ErrNotRestartable)
	}
	for _, k := range serverMetadata {
		delete(md, k)
	}
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[watch.AnnotationAttempt] = strconv.Itoa(req.Attempt)
	ann[watch.AnnotationFailure] = req.Failure
	ann[watch.AnnotationReason] = req.Category
	ann[watch.AnnotationFromUID] = req.UID
	delete(ann, watch.AnnotationCheckpoint)
	if req.Checkpoint != nil && req.Checkpoint.Path != "" {
		ann[watch.AnnotationCheckpoint] = req.Checkpoint.Path
	}
	u.SetAnnotations(ann)

	data := Data(req)
	var words []string
	if r.Args != nil {
		if data.Checkpoint == "" {
			// Nothing to resume from: the job starts as it was written.
			words = nil
		} else if words, err = r.Args.Render(data); err != nil {
			return nil, err
		}
	}
	env := map[string]string{}
	var envOrder []string
	if data.Checkpoint != "" {
		for _, e := range r.Env {
			v, err := e.Value.Render(data)
			if err != nil {
				return nil, err
			}
			env[e.Name] = v[0]
			envOrder = append(envOrder, e.Name)
		}
	}
	if len(words) == 0 && len(env) == 0 {
		return u, nil
	}
	k, ok := kinds[u.GetKind()]
	if !ok {
		return nil, fmt.Errorf("%s: don't know where %s keeps its command; use --restart-command: %w", req.Job, u.GetKind(), watch.ErrNotRestartable)
	}
	if err := k(obj, words, env, envOrder); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", req.Job, err, watch.ErrNotRestartable)
	}
	return u, nil
}

func deepCopy(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("copy object: %w", err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("copy object: %w", err)
	}
	return out, nil
}

// resumeFunc adds resume words and variables to one kind's object.
type resumeFunc func(obj map[string]any, words []string, env map[string]string, order []string) error

var kinds = map[string]resumeFunc{
	"PyTorchJob":         replicaSpecs("pytorchReplicaSpecs", "pytorch", nil),
	"TFJob":              replicaSpecs("tfReplicaSpecs", "tensorflow", nil),
	"XGBoostJob":         replicaSpecs("xgbReplicaSpecs", "xgboost", nil),
	"PaddleJob":          replicaSpecs("paddleReplicaSpecs", "paddle", nil),
	"MPIJob":             replicaSpecs("mpiReplicaSpecs", "", []string{"Launcher"}),
	"PyTorchTrainingJob": t9kReplicaSpecs,
	"TrainJob":           trainJob,
	"RayJob":             rayJob,
	"RayCluster": func(map[string]any, []string, map[string]string, []string) error {
		return errors.New("a RayCluster runs what was started inside its head pod; recreating it does not resume training (use --restart-command)")
	},
}

// replicaSpecs handles the Kubeflow training-operator kinds: a map of
// replica type to {replicas, template}. Words go to every replica, or
// only to argsTo (an MPIJob's launcher runs mpirun; its workers run sshd).
func replicaSpecs(field, container string, argsTo []string) resumeFunc {
	return func(obj map[string]any, words []string, env map[string]string, order []string) error {
		specs, _ := nested(obj, "spec", field).(map[string]any)
		if len(specs) == 0 {
			return fmt.Errorf("spec.%s is empty", field)
		}
		types := make([]string, 0, len(specs))
		for t := range specs {
			types = append(types, t)
		}
		slices.Sort(types)
		for _, t := range types {
			rs, _ := specs[t].(map[string]any)
			pod, _ := nested(rs, "template", "spec").(map[string]any)
			if pod == nil {
				return fmt.Errorf("spec.%s.%s has no pod template", field, t)
			}
			w := words
			if argsTo != nil && !slices.Contains(argsTo, t) {
				w = nil
			}
			if err := resumePod(pod, container, w, env, order); err != nil {
				return fmt.Errorf("spec.%s.%s: %w", field, t, err)
			}
		}
		return nil
	}
}

// t9kReplicaSpecs handles TensorStack's list of replica specs.
func t9kReplicaSpecs(obj map[string]any, words []string, env map[string]string, order []string) error {
	specs, _ := nested(obj, "spec", "replicaSpecs").([]any)
	if len(specs) == 0 {
		return errors.New("spec.replicaSpecs is empty")
	}
	for i, s := range specs {
		rs, _ := s.(map[string]any)
		pod, _ := nested(rs, "template", "spec").(map[string]any)
		if pod == nil {
			return fmt.Errorf("spec.replicaSpecs[%d] has no pod template", i)
		}
		if err := resumePod(pod, "pytorch", words, env, order); err != nil {
			return fmt.Errorf("spec.replicaSpecs[%d]: %w", i, err)
		}
	}
	return nil
}

// trainJob appends to a TrainJob's trainer args and env. Kubeflow Trainer
// replaces the runtime's args with the TrainJob's when it sets any, so
// appending to a TrainJob that sets none would drop the runtime's: that
// case is refused.
func trainJob(obj map[string]any, words []string, env map[string]string, order []string) error {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return errors.New("no spec")
	}
	trainer, _ := spec["trainer"].(map[string]any)
	if trainer == nil {
		trainer = map[string]any{}
		spec["trainer"] = trainer
	}
	if len(words) > 0 {
		args, _ := trainer["args"].([]any)
		cmd, _ := trainer["command"].([]any)
		if len(args) == 0 && len(cmd) == 0 {
			return errors.New("spec.trainer sets no command or args: appending would replace the runtime's (use --resume-env)")
		}
		if i := shellScript(toStrings(cmd), toStrings(args)); i >= 0 {
			appendScript(cmd, args, i, words)
		} else {
			trainer["args"] = append(args, toAny(words)...)
		}
	}
	if len(env) > 0 {
		trainer["env"] = setEnv(trainer["env"], env, order)
	}
	return nil
}

// rayJob appends to a RayJob's entrypoint, a shell command line, and sets
// the variables in the head and worker containers (the driver inherits the
// head's environment).
func rayJob(obj map[string]any, words []string, env map[string]string, order []string) error {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return errors.New("no spec")
	}
	if len(words) > 0 {
		ep, _ := spec["entrypoint"].(string)
		if strings.TrimSpace(ep) == "" {
			return errors.New("spec.entrypoint is empty")
		}
		for _, w := range words {
			ep += " " + shellQuote(w)
		}
		spec["entrypoint"] = ep
	}
	if len(env) == 0 {
		return nil
	}
	var pods []map[string]any
	if p, _ := nested(spec, "rayClusterSpec", "headGroupSpec", "template", "spec").(map[string]any); p != nil {
		pods = append(pods, p)
	}
	groups, _ := nested(spec, "rayClusterSpec", "workerGroupSpecs").([]any)
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		if p, _ := nested(gm, "template", "spec").(map[string]any); p != nil {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return errors.New("spec.rayClusterSpec has no pod template (a RayJob on an existing cluster: use --resume-arg or --restart-command)")
	}
	for _, p := range pods {
		if err := resumePod(p, "", nil, env, order); err != nil {
			return err
		}
	}
	return nil
}

// resumePod edits the training container of a pod template: the one
// named container, else the first.
func resumePod(pod map[string]any, container string, words []string, env map[string]string, order []string) error {
	cs, _ := pod["containers"].([]any)
	if len(cs) == 0 {
		return errors.New("no containers")
	}
	c, _ := cs[0].(map[string]any)
	for _, x := range cs {
		if m, _ := x.(map[string]any); m != nil && container != "" && m["name"] == container {
			c = m
		}
	}
	if c == nil {
		return errors.New("malformed container")
	}
	if len(words) > 0 {
		cmd, _ := c["command"].([]any)
		args, _ := c["args"].([]any)
		switch i := shellScript(toStrings(cmd), toStrings(args)); {
		case i >= 0:
			appendScript(cmd, args, i, words)
		case len(cmd) == 0 && len(args) == 0:
			return fmt.Errorf("container %v sets neither command nor args: appending would replace the image's CMD (use --resume-env)", c["name"])
		default:
			c["args"] = append(args, toAny(words)...)
		}
	}
	if len(env) > 0 {
		c["env"] = setEnv(c["env"], env, order)
	}
	return nil
}

// shellScript finds the script of a `sh -c SCRIPT` command line (command
// and args together), whose extra arguments would become $0, $1 of the
// script rather than arguments of the program it runs. It returns the
// script's index, or -1.
func shellScript(cmd, args []string) int {
	argv := append(append([]string{}, cmd...), args...)
	if len(argv) < 2 {
		return -1
	}
	switch path.Base(argv[0]) {
	case "sh", "bash", "dash", "zsh", "ash":
	default:
		return -1
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			return -1
		}
		if strings.Contains(a[1:], "c") {
			j := i + 1
			if j < len(argv) && argv[j] == "--" {
				j++
			}
			if j < len(argv) {
				return j
			}
			return -1
		}
	}
	return -1
}

// appendScript appends shell-quoted words to the script at index i of
// command+args.
func appendScript(cmd, args []any, i int, words []string) {
	target, at := cmd, i
	if i >= len(cmd) {
		target, at = args, i-len(cmd)
	}
	s, _ := target[at].(string)
	for _, w := range words {
		s += " " + shellQuote(w)
	}
	target[at] = s
}

// setEnv sets the variables in a container's env list, replacing a
// variable of the same name.
func setEnv(list any, env map[string]string, order []string) []any {
	l, _ := list.([]any)
	done := map[string]bool{}
	for i, x := range l {
		m, _ := x.(map[string]any)
		if m == nil {
			continue
		}
		name, _ := m["name"].(string)
		if v, ok := env[name]; ok {
			l[i] = map[string]any{"name": name, "value": v}
			done[name] = true
		}
	}
	for _, name := range order {
		if !done[name] {
			l = append(l, map[string]any{"name": name, "value": env[name]})
			done[name] = true
		}
	}
	return l
}

func nested(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func toStrings(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i], _ = x.(string)
	}
	return out
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
