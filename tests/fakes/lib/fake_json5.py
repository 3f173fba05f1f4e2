"""A small JSON5 reader, enough for HarmonyOS project files.

Handles // and /* */ comments, trailing commas, unquoted identifier keys, single- or
double-quoted strings with escapes and line continuations, hex numbers, leading/trailing
decimal points, +/- signs, Infinity and NaN. Raises Json5Error with line:column.
"""

import math


class Json5Error(ValueError):
    pass


class _Parser:
    def __init__(self, text):
        self.s = text
        self.i = 0

    def fail(self, msg):
        line = self.s.count("\n", 0, self.i) + 1
        col = self.i - (self.s.rfind("\n", 0, self.i) + 1) + 1
        raise Json5Error("JSON5: %s at %d:%d" % (msg, line, col))

    def peek(self):
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip(self):
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in " \t\r\n\ufeff\u00a0\u2028\u2029":
                self.i += 1
            elif self.s.startswith("//", self.i):
                end = self.s.find("\n", self.i)
                self.i = len(self.s) if end < 0 else end + 1
            elif self.s.startswith("/*", self.i):
                end = self.s.find("*/", self.i + 2)
                if end < 0:
                    self.fail("unterminated comment")
                self.i = end + 2
            else:
                break

    def value(self):
        self.skip()
        c = self.peek()
        if c == "":
            self.fail("invalid end of input")
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c in "\"'":
            return self.string()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(word, self.i):
                self.i += len(word)
                return val
        return self.number()

    def obj(self):
        self.i += 1
        out = {}
        while True:
            self.skip()
            if self.peek() == "}":
                self.i += 1
                return out
            key = self.key()
            self.skip()
            if self.peek() != ":":
                self.fail("expected ':'")
            self.i += 1
            out[key] = self.value()
            self.skip()
            c = self.peek()
            if c == ",":
                self.i += 1
            elif c == "}":
                self.i += 1
                return out
            else:
                self.fail("invalid character %r" % c if c else "invalid end of input")

    def key(self):
        c = self.peek()
        if c in "\"'":
            return self.string()
        start = self.i
        while self.i < len(self.s) and (self.s[self.i].isalnum() or self.s[self.i] in "_$"):
            self.i += 1
        if start == self.i:
            self.fail("invalid character %r" % c if c else "invalid end of input")
        return self.s[start : self.i]

    def arr(self):
        self.i += 1
        out = []
        while True:
            self.skip()
            if self.peek() == "]":
                self.i += 1
                return out
            out.append(self.value())
            self.skip()
            c = self.peek()
            if c == ",":
                self.i += 1
            elif c == "]":
                self.i += 1
                return out
            else:
                self.fail("invalid character %r" % c if c else "invalid end of input")

    ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "0": "\0"}

    def string(self):
        quote = self.s[self.i]
        self.i += 1
        parts = []
        while True:
            if self.i >= len(self.s):
                self.fail("invalid end of input")
            c = self.s[self.i]
            self.i += 1
            if c == quote:
                return "".join(parts)
            if c == "\n":
                self.fail("unterminated string")
            if c != "\\":
                parts.append(c)
                continue
            e = self.s[self.i : self.i + 1]
            self.i += 1
            if e == "u":
                parts.append(chr(int(self.s[self.i : self.i + 4], 16)))
                self.i += 4
            elif e == "x":
                parts.append(chr(int(self.s[self.i : self.i + 2], 16)))
                self.i += 2
            elif e == "\r":
                if self.peek() == "\n":
                    self.i += 1
            elif e in ("\n", "\u2028", "\u2029"):
                pass
            else:
                parts.append(self.ESCAPES.get(e, e))

    def number(self):
        start = self.i
        sign = 1
        if self.peek() in "+-":
            sign = -1 if self.peek() == "-" else 1
            self.i += 1
        if self.s.startswith("Infinity", self.i):
            self.i += 8
            return sign * math.inf
        if self.s.startswith("NaN", self.i):
            self.i += 3
            return math.nan
        if self.s.startswith(("0x", "0X"), self.i):
            j = self.i + 2
            while j < len(self.s) and self.s[j] in "0123456789abcdefABCDEF":
                j += 1
            text = self.s[self.i + 2 : j]
            self.i = j
            if not text:
                self.fail("invalid hex number")
            return sign * int(text, 16)
        j = self.i
        while j < len(self.s) and self.s[j] in "0123456789.eE+-":
            j += 1
        text = self.s[self.i : j]
        if not text or text in ".":
            self.i = start
            c = self.peek()
            self.fail("invalid character %r" % c if c else "invalid end of input")
        self.i = j
        try:
            if any(ch in text for ch in ".eE"):
                return sign * float(text)
            return sign * int(text)
        except ValueError:
            self.i = start
            self.fail("invalid number")


def loads(text):
    p = _Parser(text)
    value = p.value()
    p.skip()
    if p.i != len(p.s):
        p.fail("invalid character %r" % p.peek())
    return value


def load_file(path):
    with open(path, "r", encoding="utf-8") as f:
        return loads(f.read())
