#!/usr/bin/env python3
"""Prints tfsess op spec lines (src/ops/*.c) for TensorFlow op names.

A development aid: it reads op signatures (names, argument and attr names,
defaults, allowed values) from an installed TensorFlow's op registry and
writes them in tfsess's spec notation.  Usage:
    python opdef2spec.py MatMul BiasAdd ...
"""
import sys

from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import op_def_registry


def dtype_name(t):
    name = types_pb2.DataType.Name(t)[3:].lower()
    return {"float": "float"}.get(name, name)


def value(v, kind):
    which = v.WhichOneof("value")
    if which == "list":
        lst = v.list
        if kind.startswith("list(int)"):
            return "[" + ", ".join(str(x) for x in lst.i) + "]"
        if kind.startswith("list(float)"):
            return "[" + ", ".join(repr(x) for x in lst.f) + "]"
        if kind.startswith("list(string)"):
            return "[" + ", ".join("'%s'" % x.decode() for x in lst.s) + "]"
        if kind.startswith("list(type)"):
            return "[" + ", ".join(dtype_name(x) for x in lst.type) + "]"
        if kind.startswith("list(bool)"):
            return "[" + ", ".join("true" if x else "false" for x in lst.b) + "]"
        if kind.startswith("list(shape)"):
            return "[]"
        return "[]"
    if which == "s":
        return "'%s'" % v.s.decode()
    if which == "i":
        return str(v.i)
    if which == "f":
        return repr(v.f)
    if which == "b":
        return "true" if v.b else "false"
    if which == "type":
        return dtype_name(v.type)
    if which == "shape":
        if v.shape.unknown_rank:
            return "<unknown>"
        return "[" + ",".join("?" if d.size < 0 else str(d.size)
                              for d in v.shape.dim) + "]"
    raise ValueError("unsupported default %r" % v)


def attr(a):
    kind = a.type
    s = a.name + ": "
    allowed = a.allowed_values.list if a.HasField("allowed_values") else None
    if allowed is not None and (allowed.type or allowed.s):
        if allowed.type:
            inner = "{" + ", ".join(dtype_name(t) for t in allowed.type) + "}"
        else:
            inner = "{" + ", ".join("'%s'" % x.decode() for x in allowed.s) + "}"
        s += ("list(%s)" % inner) if kind.startswith("list") else inner
    else:
        s += kind
    if a.has_minimum:
        s += " >= %d" % a.minimum
    if a.HasField("default_value"):
        s += " = " + value(a.default_value, kind)
    return s


def arg(a):
    if a.number_attr:
        t = "%s * %s" % (a.number_attr, a.type_attr or dtype_name(a.type))
    elif a.type_list_attr:
        t = a.type_list_attr
    elif a.type_attr:
        t = a.type_attr
    else:
        t = dtype_name(a.type)
    if a.is_ref:
        t = "Ref(%s)" % t
    return "%s: %s" % (a.name, t)


def main():
    for name in sys.argv[1:]:
        d = op_def_registry.get(name)
        if d is None:
            print("/* %s: not in TensorFlow */" % name)
            continue
        flags = []
        if d.is_stateful:
            flags.append("TFS_OP_STATEFUL")
        if d.is_commutative:
            flags.append("TFS_OP_COMMUTATIVE")
        if d.is_aggregate:
            flags.append("TFS_OP_AGGREGATE")
        if d.allows_uninitialized_input:
            flags.append("TFS_OP_ALLOWS_UNINIT")
        print('    {"%s", "%s", "%s",\n     "%s",\n     SHAPE_FN, %s},' % (
            d.name, "; ".join(arg(a) for a in d.input_arg),
            "; ".join(arg(a) for a in d.output_arg),
            "; ".join(attr(a) for a in d.attr),
            " | ".join(flags) or "0"))


if __name__ == "__main__":
    main()
