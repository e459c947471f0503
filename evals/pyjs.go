package evals

import (
	"fmt"
	"math/big"
	"strings"
)

// maxSafeInt is the largest integer a JavaScript number holds exactly.
var maxSafeInt = big.NewInt(1<<53 - 1)

// pyBuiltins maps the Python functions HumanEval's tests call to the
// JavaScript the shim provides.
var pyBuiltins = map[string]string{
	"abs": "Math.abs", "len": "__py.len", "sorted": "__py.sorted", "sum": "__py.sum",
	"min": "__py.min", "max": "__py.max", "round": "__py.round", "list": "__py.list",
	"tuple": "__py.list", "set": "__py.set", "str": "__py.str", "int": "__py.int",
	"float": "Number", "range": "__py.range", "all": "__py.all", "any": "__py.any",
	"bool": "__py.truthy", "isinstance": "__py.isinstance", "type": "__py.type",
	"math.fabs": "Math.abs", "math.sqrt": "Math.sqrt", "math.floor": "Math.floor",
	"math.ceil": "Math.ceil", "math.isclose": "__py.isclose", "math.pi": "Math.PI",
	"math.e": "Math.E",
}

// jsExpr translates a parsed Python expression into a JavaScript one.
func jsExpr(n *pyNode) (string, error) {
	switch n.kind {
	case "num":
		return jsNumber(n.val)
	case "str":
		return jsString(n.val), nil
	case "const":
		return map[string]string{"True": "true", "False": "false", "None": "null"}[n.val], nil
	case "name":
		if js, ok := pyBuiltins[n.val]; ok {
			return js, nil
		}
		switch n.val {
		case "int", "str", "float", "list", "dict", "tuple", "bool":
			return jsString(n.val), nil
		}
		return n.val, nil
	case "paren":
		s, err := jsExpr(n.kids[0])
		return "(" + s + ")", err
	case "list", "tuple":
		items, err := jsList(n.kids)
		return "[" + items + "]", err
	case "set":
		items, err := jsList(n.kids)
		return "new Set([" + items + "])", err
	case "dict":
		var parts []string
		for i := 0; i+1 < len(n.kids); i += 2 {
			k, err := jsKey(n.kids[i])
			if err != nil {
				return "", err
			}
			v, err := jsExpr(n.kids[i+1])
			if err != nil {
				return "", err
			}
			parts = append(parts, k+": "+v)
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case "attr":
		if x := n.kids[0]; x.kind == "name" {
			if js, ok := pyBuiltins[x.val+"."+n.val]; ok {
				return js, nil
			}
			if x.val == "math" {
				return "", fmt.Errorf("math.%s is not supported", n.val)
			}
		}
		x, err := jsExpr(n.kids[0])
		return x + "." + n.val, err
	case "call":
		return jsCall(n)
	case "kw":
		return "", fmt.Errorf("keyword argument %s= is supported only in math.isclose", n.val)
	case "index":
		return jsFunc("__py.at", n.kids)
	case "slice":
		var args []string
		for _, k := range n.kids {
			if k == nil {
				args = append(args, "null")
				continue
			}
			s, err := jsExpr(k)
			if err != nil {
				return "", err
			}
			args = append(args, s)
		}
		return "__py.slice(" + strings.Join(args, ", ") + ")", nil
	case "unary":
		x, err := jsExpr(n.kids[0])
		return "(" + n.val + x + ")", err
	case "not":
		x, err := jsExpr(n.kids[0])
		return "!__py.truthy(" + x + ")", err
	case "and", "or":
		a, err := jsExpr(n.kids[0])
		if err != nil {
			return "", err
		}
		b, err := jsExpr(n.kids[1])
		op := map[string]string{"and": "&&", "or": "||"}[n.kind]
		return "(__py.truthy(" + a + ") " + op + " __py.truthy(" + b + "))", err
	case "ifexp":
		c, err := jsExpr(n.kids[0])
		if err != nil {
			return "", err
		}
		a, err := jsExpr(n.kids[1])
		if err != nil {
			return "", err
		}
		b, err := jsExpr(n.kids[2])
		return "(__py.truthy(" + c + ") ? " + a + " : " + b + ")", err
	case "bin":
		return jsBinary(n)
	case "cmp":
		return jsCompare(n)
	}
	return "", fmt.Errorf("unsupported expression %q", n.kind)
}

func jsList(kids []*pyNode) (string, error) {
	parts := make([]string, len(kids))
	for i, k := range kids {
		s, err := jsExpr(k)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, ", "), nil
}

func jsFunc(name string, kids []*pyNode) (string, error) {
	args, err := jsList(kids)
	return name + "(" + args + ")", err
}

// jsKey is a dict key as an object literal's key: strings and numbers as
// themselves, anything else computed.
func jsKey(k *pyNode) (string, error) {
	switch k.kind {
	case "str":
		return jsString(k.val), nil
	case "num":
		s, err := jsNumber(k.val)
		return jsString(s), err
	}
	s, err := jsExpr(k)
	return "[" + s + "]", err
}

// jsNumber translates a Python numeric literal; an integer beyond what a
// JavaScript number holds exactly is an error (the problem needs an
// override).
func jsNumber(lit string) (string, error) {
	l := strings.ToLower(lit)
	if strings.HasSuffix(l, "j") {
		return "", fmt.Errorf("complex literal %s is not supported", lit)
	}
	if strings.ContainsAny(l, ".e") && !strings.HasPrefix(strings.TrimPrefix(l, "-"), "0x") {
		return lit, nil
	}
	v, ok := new(big.Int).SetString(l, 0)
	if !ok {
		return "", fmt.Errorf("bad number %q", lit)
	}
	if new(big.Int).Abs(v).Cmp(maxSafeInt) > 0 {
		return "", fmt.Errorf("integer %s is beyond JavaScript's exact range", lit)
	}
	return v.String(), nil
}

func jsCall(n *pyNode) (string, error) {
	fn := n.kids[0]
	if fn.kind == "attr" && fn.kids[0].kind == "name" && fn.kids[0].val == "math" && fn.val == "isclose" {
		return jsIsClose(n.kids[1:])
	}
	if fn.kind == "name" && fn.val == "print" {
		return "undefined", nil
	}
	f, err := jsExpr(fn)
	if err != nil {
		return "", err
	}
	if fn.kind == "attr" && pyBuiltins[fn.kids[0].val+"."+fn.val] == "" {
		// a method call on a value, as s.lower(): the shim maps the few
		// tests use to their JavaScript counterparts.
		x, err := jsExpr(fn.kids[0])
		if err != nil {
			return "", err
		}
		args, err := jsList(n.kids[1:])
		if err != nil {
			return "", err
		}
		if args != "" {
			args = ", " + args
		}
		return "__py.method(" + x + ", " + jsString(fn.val) + args + ")", nil
	}
	return jsFunc(f, n.kids[1:])
}

// jsIsClose translates math.isclose(a, b, rel_tol=…, abs_tol=…).
func jsIsClose(args []*pyNode) (string, error) {
	var pos []string
	opts := map[string]string{"rel_tol": "1e-9", "abs_tol": "0"}
	for _, a := range args {
		if a.kind == "kw" {
			if _, ok := opts[a.val]; !ok {
				return "", fmt.Errorf("math.isclose has no argument %s", a.val)
			}
			v, err := jsExpr(a.kids[0])
			if err != nil {
				return "", err
			}
			opts[a.val] = v
			continue
		}
		v, err := jsExpr(a)
		if err != nil {
			return "", err
		}
		pos = append(pos, v)
	}
	if len(pos) != 2 {
		return "", fmt.Errorf("math.isclose takes two values, got %d", len(pos))
	}
	return fmt.Sprintf("__py.isclose(%s, %s, %s, %s)", pos[0], pos[1], opts["rel_tol"], opts["abs_tol"]), nil
}

func jsBinary(n *pyNode) (string, error) {
	a, err := jsExpr(n.kids[0])
	if err != nil {
		return "", err
	}
	b, err := jsExpr(n.kids[1])
	if err != nil {
		return "", err
	}
	switch n.val {
	case "-", "/", "**":
		return "(" + a + " " + n.val + " " + b + ")", nil
	case "+":
		return "__py.add(" + a + ", " + b + ")", nil
	case "*":
		return "__py.mul(" + a + ", " + b + ")", nil
	case "//":
		return "Math.floor(" + a + " / " + b + ")", nil
	case "%":
		return "__py.mod(" + a + ", " + b + ")", nil
	}
	return "", fmt.Errorf("unsupported operator %q", n.val)
}

func jsCompare(n *pyNode) (string, error) {
	a, err := jsExpr(n.kids[0])
	if err != nil {
		return "", err
	}
	b, err := jsExpr(n.kids[1])
	if err != nil {
		return "", err
	}
	none := isNone(n.kids[1])
	switch {
	case none && (n.val == "==" || n.val == "is"):
		// None is null, and a JavaScript function that returns nothing
		// (undefined) answers None too
		return "(" + a + " == null)", nil
	case none && (n.val == "!=" || n.val == "is not"):
		return "(" + a + " != null)", nil
	}
	switch n.val {
	case "==":
		return "__py.eq(" + a + ", " + b + ")", nil
	case "!=":
		return "!__py.eq(" + a + ", " + b + ")", nil
	case "<", ">", "<=", ">=":
		return "(" + a + " " + n.val + " " + b + ")", nil
	case "in":
		return "__py.contains(" + b + ", " + a + ")", nil
	case "not in":
		return "!__py.contains(" + b + ", " + a + ")", nil
	case "is":
		return "(" + a + " === " + b + ")", nil
	case "is not":
		return "(" + a + " !== " + b + ")", nil
	}
	return "", fmt.Errorf("unsupported comparison %q", n.val)
}
