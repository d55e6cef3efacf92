package execout

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/evidence"
)

// nvidiaSMIFailures are what nvidia-smi prints instead of a table when the
// driver or a GPU is broken, and what a shell prints when it is missing.
var nvidiaSMIFailures = []string{
	"NVIDIA-SMI has failed",
	"Unable to determine the device handle",
	"GPU is lost",
	"No devices were found",
	"Failed to initialize NVML",
	"Driver/library version mismatch",
	"couldn't communicate with the NVIDIA driver",
	"Unknown Error",
	"executable file not found",
	"command not found",
	"No such file or directory",
}

var (
	// "|   0  NVIDIA H100 80GB HBM3          On  |" – first cell of a GPU row.
	smiGPURow = regexp.MustCompile(`^\s*(\d+)\s+(.+?)\s+(?:On|Off)\s*$`)
	// "4MiB /  81559MiB" – memory cell.
	smiMemory = regexp.MustCompile(`(\d+)\s*MiB\s*/\s*(\d+)\s*MiB`)
	smiUtil   = regexp.MustCompile(`(\d+)\s*%`)
	// "[Unknown Error]", "[N/A]" – a bracketed CSV field.
	smiBracketed = regexp.MustCompile(`\[[^\]]*\]`)
	// "|    0   N/A  N/A     12345      C   python   70000MiB |"
	smiProcess = regexp.MustCompile(`^\|\s+\d+\s+(?:\S+\s+\S+\s+)?\d+\s+(?:C|G|C\+G|M|M\+C)\s+`)
)

// ParseNvidiaSMI parses plain `nvidia-smi` output or the CSV of
// `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]`. When
// nvidia-smi reported a failure, Error holds its message and GPUs may be
// empty; that is a result, not a parse error.
func ParseNvidiaSMI(r io.Reader) (*evidence.NvidiaSMI, error) {
	ls, err := lines(r)
	if err != nil {
		return nil, err
	}
	out := &evidence.NvidiaSMI{GPUs: []evidence.GPU{}}
	for _, l := range ls {
		// A query field nvidia-smi could not read ("[Unknown Error]")
		// is a value of the row, reported per GPU, not a failure of
		// the command.
		bare := smiBracketed.ReplaceAllString(l, "")
		for _, f := range nvidiaSMIFailures {
			if strings.Contains(bare, f) && out.Error == "" {
				out.Error = strings.TrimSpace(l)
			}
		}
	}
	table := false
	for _, l := range ls {
		if strings.HasPrefix(strings.TrimSpace(l), "+---") || strings.HasPrefix(l, "|") {
			table = true
			break
		}
	}
	if table {
		parseSMITable(ls, out)
	} else {
		if err := parseSMICSV(ls, out); err != nil && out.Error == "" {
			return nil, err
		}
	}
	if len(out.GPUs) == 0 && out.Error == "" {
		return nil, fmt.Errorf("nvidia-smi: %w", errUnrecognised)
	}
	utils := make([]float64, len(out.GPUs))
	for i, g := range out.GPUs {
		utils[i] = g.Utilization
	}
	out.AvgUtilization = round2(mean(utils))
	return out, nil
}

// parseSMITable reads the plain table: each GPU is a row whose first cell
// is "index name persistence" followed by a row with memory and
// utilization; processes are counted in the Processes section.
func parseSMITable(ls []string, out *evidence.NvidiaSMI) {
	inProcesses := false
	for i, l := range ls {
		if strings.Contains(l, "Processes:") {
			inProcesses = true
			continue
		}
		if inProcesses {
			if smiProcess.MatchString(l) {
				out.Processes++
			}
			continue
		}
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		m := smiGPURow.FindStringSubmatch(cells[0])
		if m == nil || i+1 >= len(ls) {
			continue
		}
		idx, _ := strconv.Atoi(m[1])
		g := evidence.GPU{Index: idx, Name: strings.TrimSpace(m[2])}
		next := ls[i+1]
		if mm := smiMemory.FindStringSubmatch(next); mm != nil {
			g.MemoryUsed = quantity(mm[1])
			g.MemoryTotal = quantity(mm[2])
		}
		// Utilization is the first percentage of the last cell ("0%
		// Default"); the fan cell of the first may hold one too.
		nc := strings.Split(strings.Trim(next, "|"), "|")
		if mu := smiUtil.FindStringSubmatch(nc[len(nc)-1]); mu != nil {
			g.Utilization = quantity(mu[1])
		}
		g.ErrCells = smiErrCells(g.Name, cells, nc)
		out.GPUs = append(out.GPUs, g)
	}
}

// parseSMICSV reads --format=csv output. With a header the columns are
// found by name; without one they are assumed to be the query the
// collector runs (index, utilization.gpu, memory.used, memory.total).
func parseSMICSV(ls []string, out *evidence.NvidiaSMI) error {
	col := map[string]int{"index": 0, "utilization.gpu": 1, "memory.used": 2, "memory.total": 3}
	sawRow := false
	for _, l := range ls {
		if strings.TrimSpace(l) == "" {
			continue
		}
		fields := strings.Split(l, ",")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if isCSVHeader(fields) {
			col = map[string]int{}
			for i, f := range fields {
				name, _, _ := strings.Cut(f, " [") // "memory.used [MiB]"
				col[strings.ToLower(strings.TrimSpace(name))] = i
			}
			continue
		}
		get := func(name string) (string, bool) {
			i, ok := col[name]
			if !ok || i >= len(fields) {
				return "", false
			}
			return fields[i], true
		}
		idxS, ok := get("index")
		if !ok {
			continue
		}
		idx, err := strconv.Atoi(idxS)
		if err != nil {
			continue // not a data row (an error message, say)
		}
		g := evidence.GPU{Index: idx}
		if v, ok := get("name"); ok {
			g.Name = v
		}
		if v, ok := get("utilization.gpu"); ok {
			g.Utilization = number(v)
		}
		if v, ok := get("memory.used"); ok {
			g.MemoryUsed = mib(v)
		}
		if v, ok := get("memory.total"); ok {
			g.MemoryTotal = mib(v)
		}
		g.ErrCells = csvErrCells(col, fields)
		out.GPUs = append(out.GPUs, g)
		sawRow = true
	}
	if !sawRow {
		return fmt.Errorf("nvidia-smi: %w", errUnrecognised)
	}
	return nil
}

// smiCSVCells names, for the query columns whose value nvidia-smi could
// not read, the cell of the plain table that shows the same value, so
// that both formats report the same names.
var smiCSVCells = map[string]string{
	"name":            "name",
	"fan.speed":       "fan",
	"temperature.gpu": "temp",
	"pstate":          "perf",
	"power.draw":      "power",
	"memory.used":     "memory",
	"memory.total":    "memory",
	"memory.free":     "memory",
	"utilization.gpu": "util",
	"compute_mode":    "compute",
}

// smiCSVErrValues are what nvidia-smi prints in a CSV field it could not
// read: NVML's error in brackets ("[Unknown Error]", "[GPU requires
// reset]", "[GPU is lost]"). "[N/A]" and "[Not Supported]" are normal.
func isSMICSVErr(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "[unknown error]", "[gpu requires reset]", "[gpu is lost]", "err!":
		return true
	}
	return false
}

// csvErrCells names the cells of one CSV row that nvidia-smi could not
// read, in column order.
func csvErrCells(col map[string]int, fields []string) []string {
	names := make([]string, len(fields))
	for name, i := range col {
		if i < len(fields) {
			names[i] = name
		}
	}
	var errs []string
	for i, f := range fields {
		if !isSMICSVErr(f) {
			continue
		}
		cell, ok := smiCSVCells[names[i]]
		if !ok && strings.HasPrefix(names[i], "ecc.") {
			cell, ok = "ecc", true
		}
		if ok && (len(errs) == 0 || errs[len(errs)-1] != cell) {
			errs = append(errs, cell)
		}
	}
	return errs
}

func isCSVHeader(fields []string) bool {
	for _, f := range fields {
		f = strings.ToLower(f)
		if f == "index" || strings.HasPrefix(f, "utilization.") || strings.HasPrefix(f, "memory.") || f == "name" || strings.HasPrefix(f, "uuid") {
			return true
		}
	}
	return false
}

// number reads "45 %", "45", "[N/A]" (0) or "[Not Supported]" (0).
func number(s string) float64 {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	return quantity(f[0])
}

// mib reads a memory value in MiB ("81559 MiB", "81559"), converting GiB.
func mib(s string) float64 {
	v := number(s)
	if strings.Contains(s, "GiB") {
		v = finite(v * 1024)
	}
	return v
}

func round2(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64)
	return f
}

// smiErrRead is what nvidia-smi prints in a cell it could not read.
const smiErrRead = "ERR!"

// smiErrCells names the cells of a GPU's two table rows that read "ERR!"
// (its name too, which a lost GPU prints as ERR!): the first row is
// "index name persistence | bus-id disp.A | ECC", the
// second "fan temp perf power/cap | memory | util compute". The driver
// prints ERR! where NVML failed to read a value; which of them matter is
// for the rules to decide, so every one is reported, in table order.
func smiErrCells(gpuName string, first, second []string) []string {
	var errs []string
	add := func(name string) {
		if len(errs) == 0 || errs[len(errs)-1] != name {
			errs = append(errs, name)
		}
	}
	if gpuName == smiErrRead {
		add("name")
	}
	if len(first) > 1 && strings.Contains(first[1], smiErrRead) {
		add("disp")
	}
	if len(first) > 2 && strings.Contains(first[2], smiErrRead) {
		add("ecc")
	}
	if len(second) > 0 {
		for _, name := range smiSensorErrs(second[0]) {
			add(name)
		}
	}
	if len(second) > 1 && strings.Contains(second[1], smiErrRead) {
		add("memory")
	}
	if len(second) > 2 {
		f := strings.Fields(second[2])
		if len(f) > 0 && f[0] == smiErrRead {
			add("util")
		}
		if len(f) > 1 && f[1] == smiErrRead {
			add("compute")
		}
	}
	return errs
}

// smiSensorErrs reads the "fan temp perf usage / cap" cell: the fields
// before the slash are fan, temperature, performance state and power
// draw (in every driver's layout), the one after it the power cap.
func smiSensorErrs(cell string) []string {
	left, right, _ := strings.Cut(cell, "/")
	names := []string{"fan", "temp", "perf", "power"}
	var errs []string
	for i, f := range strings.Fields(left) {
		if f == smiErrRead && i < len(names) {
			errs = append(errs, names[i])
		}
	}
	if strings.Contains(right, smiErrRead) && (len(errs) == 0 || errs[len(errs)-1] != "power") {
		errs = append(errs, "power")
	}
	return errs
}
