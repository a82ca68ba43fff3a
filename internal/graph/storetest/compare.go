package storetest

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
)

// check fails the test when got and want differ (see diff).
func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := diff(got, want); d != "" {
		t.Errorf("%s: %s\ngot:  %+v\nwant: %+v", what, d, got, want)
	}
}

// diff compares got and want deeply and describes the first difference, or returns "". It is
// lenient where backends legitimately differ: nil and empty slices and maps are equal, times are
// compared as instants, and floats allow for a backend that stores them in another precision
// (relative 1e-6 for float32, 1e-9 for float64).
func diff(got, want any) string {
	return diffValue("", reflect.ValueOf(got), reflect.ValueOf(want))
}

func diffValue(path string, g, w reflect.Value) string {
	if !g.IsValid() || !w.IsValid() {
		if g.IsValid() != w.IsValid() {
			return fmt.Sprintf("%s: one side is nil", pathOr(path))
		}
		return ""
	}
	if g.Type() != w.Type() {
		return fmt.Sprintf("%s: type %s, want %s", pathOr(path), g.Type(), w.Type())
	}
	if g.Type() == reflect.TypeFor[time.Time]() {
		gt, wt := g.Interface().(time.Time), w.Interface().(time.Time)
		if !gt.Equal(wt) {
			return fmt.Sprintf("%s: %v, want %v", pathOr(path), gt, wt)
		}
		return ""
	}
	switch g.Kind() {
	case reflect.Slice, reflect.Array:
		if g.Len() != w.Len() {
			return fmt.Sprintf("%s: length %d, want %d", pathOr(path), g.Len(), w.Len())
		}
		for i := range g.Len() {
			if d := diffValue(fmt.Sprintf("%s[%d]", path, i), g.Index(i), w.Index(i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if g.Len() != w.Len() {
			return fmt.Sprintf("%s: %d keys, want %d", pathOr(path), g.Len(), w.Len())
		}
		for _, k := range w.MapKeys() {
			gv := g.MapIndex(k)
			if !gv.IsValid() {
				return fmt.Sprintf("%s: key %v missing", pathOr(path), k)
			}
			if d := diffValue(fmt.Sprintf("%s[%v]", path, k), gv, w.MapIndex(k)); d != "" {
				return d
			}
		}
	case reflect.Struct:
		for i := range g.NumField() {
			f := g.Type().Field(i)
			p := f.Name
			if path != "" && !f.Anonymous {
				p = path + "." + f.Name
			} else if f.Anonymous {
				p = path
			}
			if d := diffValue(p, g.Field(i), w.Field(i)); d != "" {
				return d
			}
		}
	case reflect.Pointer, reflect.Interface:
		if g.IsNil() || w.IsNil() {
			if g.IsNil() != w.IsNil() {
				return fmt.Sprintf("%s: one side is nil", pathOr(path))
			}
			return ""
		}
		return diffValue(path, g.Elem(), w.Elem())
	case reflect.Float32, reflect.Float64:
		tol := 1e-9
		if g.Kind() == reflect.Float32 {
			tol = 1e-6
		}
		if !approx(g.Float(), w.Float(), tol) {
			return fmt.Sprintf("%s: %v, want %v", pathOr(path), g.Float(), w.Float())
		}
	default:
		if !reflect.DeepEqual(g.Interface(), w.Interface()) {
			return fmt.Sprintf("%s: %#v, want %#v", pathOr(path), g.Interface(), w.Interface())
		}
	}
	return ""
}

// approx reports whether a and b are equal up to relative tolerance tol (absolute near zero).
func approx(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

func pathOr(p string) string {
	if p == "" {
		return "value"
	}
	return p
}
