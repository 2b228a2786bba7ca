/// Helpers for putting plain text inside the SSML that espeak-ng reads.
public enum SSML {
    /// Escapes the five XML special characters so that a place name such as "Kahvila & Bar <3>"
    /// is spoken as written instead of being parsed as markup.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Wraps already-escaped SSML content in a `<speak>` element.
    public static func document(_ escapedBody: String) -> String {
        "<speak>\(escapedBody)</speak>"
    }
}
