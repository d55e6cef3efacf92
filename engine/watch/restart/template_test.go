package restart

import (
	"reflect"
	"testing"
)

func TestParseWords(t *testing.T) {
	data := TemplateData{Kind: "PyTorchJob", Namespace: "asr", Name: "conformer-xl", Checkpoint: "/results/run 7/step=8000.ckpt", Step: 8000, Attempt: 2}
	tests := []struct {
		src  string
		want []string
	}{
		{"--resume-from={{.Checkpoint}}", []string{"--resume-from=/results/run 7/step=8000.ckpt"}},
		{"--resume_from_checkpoint {{ .Checkpoint }}", []string{"--resume_from_checkpoint", "/results/run 7/step=8000.ckpt"}},
		{`kubectl -n {{.Namespace}} annotate {{.Kind}}/{{.Name}} "resume=step {{.Step}}" try={{.Attempt}}`,
			[]string{"kubectl", "-n", "asr", "annotate", "PyTorchJob/conformer-xl", "resume=step 8000", "try=2"}},
		{`a\ b 'c d' "e \"f\""`, []string{"a b", "c d", `e "f"`}},
	}
	for _, tt := range tests {
		w, err := ParseWords(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		got, err := w.Render(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\ngot  %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

// A checkpoint path is data: template syntax, quotes and shell syntax in
// it come out as they went in, in one word.
func TestCheckpointIsData(t *testing.T) {
	w, err := ParseWords("--resume={{.Checkpoint}}")
	if err != nil {
		t.Fatal(err)
	}
	evil := `/ckpt/{{.Name}}/x'; rm -rf / #"$(id)`
	got, err := w.Render(TemplateData{Name: "job", Checkpoint: evil})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "--resume="+evil {
		t.Errorf("got %q", got)
	}
}

func TestParseWordsErrors(t *testing.T) {
	for _, src := range []string{"", "  ", "{{.Secret}}", "{{.Name", "'open", `"open`, "{{index .Name 1 | printf}}x\\"} {
		if _, err := ParseWords(src); err == nil {
			t.Errorf("%q accepted", src)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"--resume-from=/ckpt/step_1": "--resume-from=/ckpt/step_1",
		"a b":                        "'a b'",
		"it's":                       `'it'"'"'s'`,
		"$(id)":                      "'$(id)'",
		"":                           "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
