package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traindoc/traindoc/engine/explain"
)

func newPromptCmd(s IOStreams) *cobra.Command {
	var (
		lang    string
		prompts string
		output  string
		src     *sourceFlags
	)
	cmd := &cobra.Command{
		Use:   "prompt --snapshot DIR [JOB...]",
		Short: "Print the LLM prompts for jobs without sending them",
		Long: `Diagnose a snapshot and print, for every job (or only the JOBs named), the
system and user prompts that "diagnose --llm" would send, after redaction.
Nothing is sent. Use it to check a custom template (--prompts DIR, or the
snapshot's prompts/ folder) or to see what leaves the machine.

Healthy jobs are printed too, marked as not sent.`,
		Example: `  traindoc prompt --snapshot fixtures/seed-master-oom-137
  traindoc prompt --snapshot snap/ --prompts examples/prompts --lang zh ml-research/bert-large-pretrain
  traindoc prompt --snapshot snap/ -o json | jq -r '.[0].messages[1].content'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if lang != "en" && lang != "zh" {
				return usageError(fmt.Errorf("--lang %q: want en or zh", lang))
			}
			if output != "text" && output != "json" {
				return usageError(fmt.Errorf("-o %q: want text or json", output))
			}
			src.jobs = args
			rep, err := loadReport(cmd.Context(), src)
			if err != nil {
				return err
			}
			// After loadReport: a live snapshot's prompts/ count too.
			e, err := explain.New(explain.Config{PromptsDir: prompts, SnapshotDirs: snapshotDirs(cmd.Flags()), Lang: lang})
			if err != nil {
				return usageError(err)
			}
			type message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			type rendered struct {
				Kind      string    `json:"kind"`
				Namespace string    `json:"namespace"`
				Name      string    `json:"name"`
				Healthy   bool      `json:"healthy"`
				Template  string    `json:"template"`
				Messages  []message `json:"messages"`
			}
			var all []rendered
			for i := range rep.Jobs {
				j := &rep.Jobs[i]
				system, user, err := e.Prompt(j, rep)
				if err != nil {
					return err
				}
				all = append(all, rendered{
					Kind: j.Kind, Namespace: j.Namespace, Name: j.Name, Healthy: j.Healthy,
					Template: e.TemplateSource(j.Kind),
					Messages: []message{{"system", system}, {"user", user}},
				})
			}
			w := s.Out
			if output == "json" {
				if all == nil {
					all = []rendered{}
				}
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(all)
			}
			for i, r := range all {
				if i > 0 {
					fmt.Fprintln(w)
				}
				note := ""
				if r.Healthy {
					note = " (healthy: not sent by --llm)"
				}
				fmt.Fprintf(w, "===== %s %s/%s%s\n===== template: %s\n", r.Kind, r.Namespace, r.Name, note, r.Template)
				for _, m := range r.Messages {
					fmt.Fprintf(w, "----- %s\n%s\n", m.Role, m.Content)
				}
			}
			return nil
		},
	}
	src = bindSourceFlags(cmd.Flags(), s.ErrOut)
	cmd.Flags().StringVar(&lang, "lang", "en", "prompt and answer language: en or zh")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json (the chat messages)")
	bindPromptsFlag(cmd.Flags(), &prompts)
	return cmd
}
