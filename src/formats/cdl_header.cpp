#include "formats/cdl_header.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"

namespace iok {

namespace {

struct Token {
    enum Kind { Word, String, Punct, End } kind = End;
    // word text, unescaped string, or the punctuation char: a view of the
    // source text, or of Lexed::unescaped when escapes had to be undone
    std::string_view text;
    int line = 0;
};

// The tokens, and the text of those that are not verbatim in the source.
// Views instead of a string per token: an E3SM header is 15,000 tokens, lexed
// by every rank of every run (issue 19).
struct Lexed {
    std::vector<Token> tokens;
    std::deque<std::string> unescaped;  // a deque: adding keeps the others in place
};

bool is_punct(char c) {
    switch (c) {
        case '=':
        case ';':
        case ',':
        case '(':
        case ')':
        case '{':
        case '}':
        case ':': return true;
        default: return false;
    }
}

// isspace() of the C locale, inline: the lexer looks at every character.
inline bool blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
inline bool word_char(char c) { return !blank(c) && !is_punct(c) && c != '"'; }

// Splits CDL into words, strings and punctuation; drops comments.
Lexed lex(const std::string& s, const std::string& source) {
    Lexed out;
    out.tokens.reserve(s.size() / 4);  // E3SM's headers: one token per 5-6 characters
    int line = 1;
    std::size_t i = 0;
    auto keep = [&](std::string text) -> std::string_view { return out.unescaped.emplace_back(std::move(text)); };
    while (i < s.size()) {
        char c = s[i];
        if (c == '\n') {
            ++line;
            ++i;
        } else if (blank(c)) {
            ++i;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n') ++i;
        } else if (c == '"') {
            const int first_line = line;
            std::size_t j = ++i;  // verbatim up to the closing quote unless an escape comes first
            while (j < s.size() && s[j] != '"' && s[j] != '\\') line += s[j++] == '\n';
            if (j >= s.size()) throw Error(source + ":" + std::to_string(first_line) + ": unterminated string");
            if (s[j] == '"') {
                out.tokens.push_back({Token::String, std::string_view(s).substr(i, j - i), first_line});
                i = j + 1;
                continue;
            }
            std::string text(s, i, j - i);  // an escape: undo them from here on
            i = j;
            for (;;) {
                if (i >= s.size()) throw Error(source + ":" + std::to_string(first_line) + ": unterminated string");
                std::size_t k = i;  // plain characters up to the next quote or escape in one append
                while (k < s.size() && s[k] != '"' && s[k] != '\\') line += s[k++] == '\n';
                text.append(s, i, k - i);
                i = k;
                if (i >= s.size()) continue;  // reported above
                if (s[i++] == '"') break;
                if (i >= s.size()) throw Error(source + ":" + std::to_string(line) + ": unterminated string");
                char e = s[i++];
                switch (e) {
                    case 'n': text += '\n'; break;
                    case 't': text += '\t'; break;
                    case 'r': text += '\r'; break;
                    case '0': text += '\0'; break;
                    case '\n':
                        ++line;
                        text += e;
                        break;
                    default: text += e;  // \" \\ \'
                }
            }
            out.tokens.push_back({Token::String, keep(std::move(text)), first_line});
        } else if (is_punct(c)) {
            out.tokens.push_back({Token::Punct, std::string_view(s).substr(i, 1), line});
            ++i;
        } else {
            std::size_t j = i;
            while (j < s.size() && word_char(s[j]) && s[j] != '\\') ++j;
            if (j >= s.size() || s[j] != '\\') {
                out.tokens.push_back({Token::Word, std::string_view(s).substr(i, j - i), line});
                i = j;
                continue;
            }
            std::string text;  // an escaped character in a name
            while (i < s.size() && word_char(s[i])) {
                if (s[i] == '\\' && i + 1 < s.size()) ++i;
                std::size_t k = i + 1;  // the plain characters that follow, in one append
                while (k < s.size() && word_char(s[k]) && s[k] != '\\') ++k;
                text.append(s, i, k - i);
                i = k;
            }
            out.tokens.push_back({Token::Word, keep(std::move(text)), line});
        }
    }
    out.tokens.push_back({Token::End, {}, line});
    return out;
}

bool type_word(const std::string& w, DType& t) {
    static const struct {
        const char* name;
        DType type;
    } table[] = {{"char", DType::Char},   {"byte", DType::Byte},  {"short", DType::Short},
                 {"int", DType::Int},     {"long", DType::Int},   {"int64", DType::Int64},
                 {"float", DType::Float}, {"real", DType::Float}, {"double", DType::Double}};
    for (const auto& e : table)
        if (w == e.name) {
            t = e.type;
            return true;
        }
    return false;
}

class Parser {
public:
    Parser(Lexed lexed, std::string source) : lexed_(std::move(lexed)), t_(lexed_.tokens), src_(std::move(source)) {}

    FileSpec parse() {
        FileSpec f;
        expect_word("netcdf");
        f.label = word("the dataset name");
        punct('{');
        enum { None, Dims, Vars } section = None;
        for (;;) {
            const Token& k = peek();
            if (k.kind == Token::Punct && k.text == "}") break;
            if (k.kind == Token::End) fail(k, "missing closing '}'");
            if (k.kind == Token::Word && peek(1).kind == Token::Punct && peek(1).text == ":" &&
                (k.text == "dimensions" || k.text == "variables" || k.text == "data")) {
                if (k.text == "data") fail(k, "a data section is not supported (use ncdump -h)");
                section = k.text == "dimensions" ? Dims : Vars;
                pos_ += 2;
                continue;
            }
            if (section == Dims) {
                dimension(f);
            } else if (section == Vars) {
                if (k.kind == Token::Punct && k.text == ":") {
                    ++pos_;
                    f.global_attrs.push_back(attribute());
                } else if (k.kind == Token::Word && peek(1).kind == Token::Punct && peek(1).text == ":") {
                    const auto it = var_ids_.find(std::string(k.text));
                    const int v = it == var_ids_.end() ? -1 : it->second;
                    if (v < 0) fail(k, "attribute of undeclared variable '" + std::string(k.text) + "'");
                    pos_ += 2;
                    f.vars[v].attrs.push_back(attribute());
                } else {
                    variable(f);
                }
            } else {
                fail(k, "expected 'dimensions:' or 'variables:'");
            }
        }
        return f;
    }

private:
    const Token& peek(std::size_t ahead = 0) const { return t_[std::min(pos_ + ahead, t_.size() - 1)]; }
    [[noreturn]] void fail(const Token& k, const std::string& what) const {
        throw Error(src_ + ":" + std::to_string(k.line) + ": " + what +
                        (k.kind == Token::End ? " (at end of text)" : " (at '" + std::string(k.text) + "')"),
                    "the case description is not valid CDL header text");
    }
    std::string word(const char* what) {
        const Token& k = peek();
        if (k.kind != Token::Word) fail(k, std::string("expected ") + what);
        ++pos_;
        return std::string(k.text);
    }
    void expect_word(const char* w) {
        if (peek().kind != Token::Word || peek().text != w) fail(peek(), std::string("expected '") + w + "'");
        ++pos_;
    }
    void punct(char c) {
        if (peek().kind != Token::Punct || peek().text[0] != c) fail(peek(), std::string("expected '") + c + "'");
        ++pos_;
    }
    bool accept(char c) {
        if (peek().kind == Token::Punct && peek().text[0] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    void dimension(FileSpec& f) {
        do {
            const Token& at = peek();
            Dim d;
            d.name = word("a dimension name");
            punct('=');
            std::string len = word("a dimension length");
            if (len == "UNLIMITED" || len == "unlimited") {
                d.unlimited = true;
            } else {
                char* end = nullptr;
                unsigned long long v = std::strtoull(len.c_str(), &end, 10);
                if (!end || *end || len[0] == '-') fail(at, "bad length '" + len + "' of dimension " + d.name);
                d.length = v;
            }
            if (!dim_ids_.emplace(d.name, static_cast<int>(f.dims.size())).second)
                fail(at, "dimension '" + d.name + "' declared twice");
            f.dims.push_back(std::move(d));
        } while (accept(','));
        punct(';');
    }

    void variable(FileSpec& f) {
        const Token& at = peek();
        DType type;
        std::string tw = word("a type or attribute");
        if (!type_word(tw, type)) fail(at, "unknown type '" + tw + "'");
        do {
            VarSpec v;
            v.type = type;
            const Token& nt = peek();
            v.name = word("a variable name");
            if (accept('(')) {
                do {
                    const Token& dt = peek();
                    std::string dn = word("a dimension name");
                    const auto it = dim_ids_.find(dn);
                    const int id = it == dim_ids_.end() ? -1 : it->second;
                    if (id < 0) fail(dt, "variable '" + v.name + "' uses undeclared dimension '" + dn + "'");
                    if (!v.dims.empty() && f.dims[id].unlimited)
                        fail(dt, "the unlimited dimension must come first in '" + v.name + "'");
                    v.dims.push_back(id);
                } while (accept(','));
                punct(')');
            }
            if (!var_ids_.emplace(v.name, static_cast<int>(f.vars.size())).second)
                fail(nt, "variable '" + v.name + "' declared twice");
            f.vars.push_back(std::move(v));
        } while (accept(','));
        punct(';');
    }

    // Parses one number word with its CDL type suffix.
    static bool number(const std::string& w, DType& type, double& value) {
        std::string s = w;
        auto ends = [&](const char* suf) {
            std::size_t n = std::strlen(suf);
            if (s.size() > n && s.compare(s.size() - n, n, suf) == 0) {
                s.resize(s.size() - n);
                return true;
            }
            return false;
        };
        bool real_syntax = s.find_first_of(".eE") != std::string::npos || s.find("nan") != std::string::npos ||
                           s.find("NaN") != std::string::npos || s.find("nfinity") != std::string::npos;
        if (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0) real_syntax = false;
        if (ends("LL") || ends("ll") || ends("L") || ends("l")) {
            type = DType::Int64;
        } else if (!(s.rfind("0x", 0) == 0) && (ends("f") || ends("F"))) {
            type = DType::Float;
        } else if (ends("d") || ends("D")) {
            type = DType::Double;
        } else if (!real_syntax && (ends("s") || ends("S"))) {
            type = DType::Short;
        } else if (!real_syntax && (ends("b") || ends("B"))) {
            type = DType::Byte;
        } else {
            type = real_syntax ? DType::Double : DType::Int;
        }
        if (s.empty()) return false;
        char* end = nullptr;
        if (type == DType::Float || type == DType::Double) {
            value = std::strtod(s.c_str(), &end);
            // A float constant is stored as the float it denotes, widened.
            if (type == DType::Float) value = static_cast<double>(std::strtof(s.c_str(), &end));
        } else {
            value = static_cast<double>(std::strtoll(s.c_str(), &end, 0));
        }
        return end && *end == '\0';
    }

    Attr attribute() {
        Attr a;
        a.name = word("an attribute name");
        punct('=');
        if (peek().kind == Token::String) {
            a.type = DType::Char;
            do {
                if (peek().kind != Token::String) fail(peek(), "expected a string");
                a.text += peek().text;
                ++pos_;
            } while (accept(','));
        } else {
            bool first = true;
            do {
                const Token& vt = peek();
                std::string w = word("an attribute value");
                DType t;
                double v;
                if (!number(w, t, v)) fail(vt, "bad value '" + w + "' of attribute " + a.name);
                if (first)
                    a.type = t;
                else if (t != a.type) {
                    // CDL has one type per attribute; ints mixed with reals are reals.
                    if ((t == DType::Double || t == DType::Float) && a.type != DType::Double) a.type = t;
                }
                a.values.push_back(v);
                first = false;
            } while (accept(','));
        }
        punct(';');
        return a;
    }

    Lexed lexed_;
    const std::vector<Token>& t_;
    std::string src_;
    // name -> index of the dimensions and variables declared so far: an
    // E3SM header has hundreds of variables and thousands of attributes, and
    // a linear search per attribute was most of parsing it (issue 19)
    std::unordered_map<std::string, int> dim_ids_, var_ids_;
    std::size_t pos_ = 0;
};

}  // namespace

FileSpec parse_cdl_header(const std::string& text, const std::string& source) {
    return Parser(lex(text, source), source).parse();
}

}  // namespace iok
