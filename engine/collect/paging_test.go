package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// pagedEvents answers event lists as the API server does with a limit:
// at most Limit events a response and a continue token for the rest. It
// fails the request for page failAt (1-based; 0 never) and records every
// limit asked for.
type pagedEvents struct {
	events []corev1.Event
	failAt int
	limits []int64
}

func (p *pagedEvents) react(a k8stesting.Action) (bool, runtime.Object, error) {
	if a.GetNamespace() != "ml" {
		return true, &corev1.EventList{}, nil
	}
	opts := a.(k8stesting.ListActionImpl).ListOptions
	p.limits = append(p.limits, opts.Limit)
	if len(p.limits) == p.failAt {
		return true, nil, apierrors.NewServiceUnavailable("try later")
	}
	from, _ := strconv.Atoi(opts.Continue)
	to := min(from+int(opts.Limit), len(p.events))
	if opts.Limit == 0 {
		to = len(p.events)
	}
	list := &corev1.EventList{Items: p.events[from:to]}
	if to < len(p.events) {
		list.Continue = strconv.Itoa(to)
	}
	return true, list, nil
}

func TestEventsArePaged(t *testing.T) {
	const n = 1201
	tests := []struct {
		name      string
		failAt    int
		wantPages int
		want      int    // events written
		wantNote  string // "" for none
	}{
		{name: "all pages", wantPages: 3, want: n},
		{name: "second page fails", failAt: 2, wantPages: 2, want: pageSize, wantNote: "events not readable in ml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pagedEvents{failAt: tt.failAt}
			for i := range n {
				p.events = append(p.events, *event("ml", fmt.Sprintf("e%04d", i), "Pod", "train-worker-0"))
			}
			e := newEnv(t, kubeflowFixture()...)
			e.cs.PrependReactor("list", "events", p.react)
			opts := DefaultOptions()
			opts.Namespace = "ml"
			res, dir, err := e.collect(t, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.limits) != tt.wantPages || slices.ContainsFunc(p.limits, func(l int64) bool { return l != pageSize }) {
				t.Errorf("requests asked for %v, want %d pages of %d", p.limits, tt.wantPages, pageSize)
			}
			data, err := os.ReadFile(filepath.Join(dir, "events.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(string(data), "\n  kind: Event\n"); got != tt.want {
				t.Errorf("%d events written, want %d", got, tt.want)
			}
			noted := slices.ContainsFunc(res.Notes, func(s string) bool { return strings.HasPrefix(s, tt.wantNote) })
			if tt.wantNote != "" && !noted {
				t.Errorf("notes = %q, want one starting %q", res.Notes, tt.wantNote)
			}
		})
	}
}

// TestNodeListingStops: listing every node for an unscheduled pod stops
// at maxNodes, with a note, without asking for the pages beyond.
func TestNodeListingStops(t *testing.T) {
	var objs []runtime.Object
	for _, o := range kubeflowFixture() {
		if _, ok := o.(*corev1.Node); !ok {
			objs = append(objs, o)
		}
	}
	e := newEnv(t, objs...)
	var nodes []corev1.Node
	for i := range maxNodes + 2*pageSize {
		nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i)}})
	}
	requests := 0
	e.cs.PrependReactor("list", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		requests++
		opts := a.(k8stesting.ListActionImpl).ListOptions
		from, _ := strconv.Atoi(opts.Continue)
		to := min(from+int(opts.Limit), len(nodes))
		list := &corev1.NodeList{Items: nodes[from:to]}
		if to < len(nodes) {
			list.Continue = strconv.Itoa(to)
		}
		return true, list, nil
	})
	opts := DefaultOptions()
	opts.Namespace = "ml"
	res, _, err := e.collect(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("nodes: only the first %d listed", maxNodes)
	if !slices.Contains(res.Notes, want) {
		t.Errorf("notes = %q, want %q", res.Notes, want)
	}
	// The pager reads one page ahead, no more.
	if limit := maxNodes/pageSize + 2; requests > limit {
		t.Errorf("%d list requests for %d nodes, want at most %d", requests, len(nodes), limit)
	}
}
