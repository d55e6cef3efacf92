package policy

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// toValue converts a job's evidence to the rules' input. It builds the
// value directly from the Go value, field by field as encoding/json would
// name and omit them, instead of printing JSON and parsing it back: on a
// job with a few pods that round trip cost more than a third of a rule
// evaluation. The result equals what the round trip gives (a test holds
// both to every fixture); values of a type that marshals itself are still
// converted through JSON.
func toValue(x any) (ast.Value, error) {
	v, err := convert(reflect.ValueOf(x))
	if err != nil {
		return nil, fmt.Errorf("convert input: %w", err)
	}
	return v, nil
}

// jsonValue converts through JSON text: the reference the direct
// conversion must agree with.
func jsonValue(x any) (ast.Value, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("encode input: %w", err)
	}
	v, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("convert input: %w", err)
	}
	return v, nil
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// convert turns one Go value into an ast.Value the way a JSON round trip
// would.
func convert(v reflect.Value) (ast.Value, error) {
	if !v.IsValid() {
		return ast.NullValue, nil
	}
	t := v.Type()
	if selfMarshaling(t) {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return ast.NullValue, nil
		}
		return jsonValue(v.Interface())
	}
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return ast.NullValue, nil
		}
		return convert(v.Elem())
	case reflect.Bool:
		return ast.Boolean(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ast.Number(strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return ast.Number(strconv.FormatUint(v.Uint(), 10)), nil
	case reflect.Float32, reflect.Float64:
		return floatValue(v.Float(), t.Bits())
	case reflect.String:
		if t == reflect.TypeFor[json.Number]() {
			return jsonValue(v.Interface())
		}
		return ast.String(validUTF8(v.String())), nil
	case reflect.Slice:
		if v.IsNil() {
			return ast.NullValue, nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return jsonValue(v.Interface()) // base64, as encoding/json does
		}
		return convertList(v)
	case reflect.Array:
		return convertList(v)
	case reflect.Map:
		if v.IsNil() {
			return ast.NullValue, nil
		}
		return convertMap(v)
	case reflect.Struct:
		return convertStruct(v)
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

// selfMarshaling reports whether values of t (or pointers to them) decide
// their own JSON.
func selfMarshaling(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return false
	}
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		(t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)))
}

func convertList(v reflect.Value) (ast.Value, error) {
	terms := make([]*ast.Term, v.Len())
	for i := range terms {
		x, err := convert(v.Index(i))
		if err != nil {
			return nil, err
		}
		terms[i] = ast.NewTerm(x)
	}
	return ast.NewArray(terms...), nil
}

func convertMap(v reflect.Value) (ast.Value, error) {
	kt := v.Type().Key()
	if kt.Kind() != reflect.String || selfMarshaling(kt) {
		// Integer keys, keys that marshal themselves: rare, and
		// encoding/json's rules for them are best left to it.
		return jsonValue(v.Interface())
	}
	pairs := make([][2]*ast.Term, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		x, err := convert(it.Value())
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, [2]*ast.Term{ast.StringTerm(validUTF8(it.Key().String())), ast.NewTerm(x)})
	}
	return ast.NewObject(pairs...), nil
}

func convertStruct(v reflect.Value) (ast.Value, error) {
	fields := structFields(v.Type())
	pairs := make([][2]*ast.Term, 0, len(fields))
	for _, f := range fields {
		fv, ok := fieldByIndex(v, f.index)
		if !ok || (f.omitEmpty && isEmpty(fv)) || (f.omitZero && fv.IsZero()) {
			continue
		}
		var (
			x   ast.Value
			err error
		)
		if f.quoted {
			x, err = quotedValue(fv)
		} else {
			x, err = convert(fv)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		pairs = append(pairs, [2]*ast.Term{ast.StringTerm(f.name), ast.NewTerm(x)})
	}
	return ast.NewObject(pairs...), nil
}

// quotedValue is a field with the ",string" option: a scalar's JSON
// written inside a string.
func quotedValue(v reflect.Value) (ast.Value, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ast.NullValue, nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b, err := json.Marshal(v.Interface())
		if err != nil {
			return nil, err
		}
		return ast.String(b), nil
	}
	return convert(v)
}

// fieldByIndex follows an embedded path; a nil embedded pointer hides its
// fields, as in encoding/json.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// field is one JSON member of a struct type.
type field struct {
	name      string
	index     []int
	omitEmpty bool
	omitZero  bool
	quoted    bool
	tagged    bool
}

var fieldCache sync.Map // reflect.Type -> []field

// structFields lists the JSON members of t in encoding/json's order, with
// its rules for embedded structs: a field at a shallower depth hides
// deeper ones of the same name, and among equals a tagged one wins; names
// still ambiguous are left out.
func structFields(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var all []field
	depthOf := map[string]int{}
	collectFields(t, nil, 0, &all, map[reflect.Type]bool{})
	for _, f := range all {
		if d, ok := depthOf[f.name]; !ok || len(f.index) < d {
			depthOf[f.name] = len(f.index)
		}
	}
	var out []field
	for _, f := range all {
		if len(f.index) != depthOf[f.name] {
			continue
		}
		var rivals, tagged int
		for _, g := range all {
			if g.name == f.name && len(g.index) == len(f.index) {
				rivals++
				if g.tagged {
					tagged++
				}
			}
		}
		if rivals == 1 || (f.tagged && tagged == 1) {
			out = append(out, f)
		}
	}
	fieldCache.Store(t, out)
	return out
}

func collectFields(t reflect.Type, index []int, depth int, out *[]field, visiting map[reflect.Type]bool) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		idx := append(append([]int(nil), index...), i)
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if name == "" && et.Kind() == reflect.Struct {
				collectFields(et, idx, depth+1, out, visiting)
				continue
			}
			if !sf.IsExported() && et.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		f := field{name: name, index: idx, tagged: name != ""}
		if name == "" {
			f.name = sf.Name
		}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "string":
				f.quoted = true
			}
		}
		*out = append(*out, f)
	}
}

// floatValue formats a float as encoding/json does: the shortest decimal
// that reads back the same, in exponent form only for very small or very
// large magnitudes. Like encoding/json it refuses NaN and infinities.
func floatValue(f float64, bits int) (ast.Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("unsupported value: %s", strconv.FormatFloat(f, 'g', -1, bits))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(nil, f, format, -1, bits)
	if format == 'e' {
		// 1e-07 is written 1e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return ast.Number(b), nil
}

// validUTF8 replaces each byte that is not part of valid UTF-8 with
// U+FFFD, as encoding/json does when it writes a string.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
