/// English number words ↔ integers, for the `number` slot ("twenty five" → "25") and for spelling digits
/// in place names ("Alko 24" → "alko twenty four").
public enum NumberWords {
    static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                       "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    public static func words(for n: Int) -> [String] {
        if n < 20 { return [ones[n]] }
        if n < 100 { return [tens[n / 10]] + (n % 10 == 0 ? [] : [ones[n % 10]]) }
        if n < 1000 { return [ones[n / 100], "hundred"] + (n % 100 == 0 ? [] : words(for: n % 100)) }
        return words(for: n / 1000) + ["thousand"] + (n % 1000 == 0 ? [] : words(for: n % 1000))
    }

    /// The value of spoken number words, or nil when they are not a number. Digits pass through.
    public static func value(of words: [String]) -> Int? {
        guard !words.isEmpty else { return nil }
        if words.count == 1, let n = Int(words[0]) { return n }
        var total = 0, current = 0
        for w in words {
            if w == "and" || w == "a" { continue }
            if let i = ones.firstIndex(of: w) { current += i } else if w == "oh" { current += 0 } else if let i = tens.firstIndex(of: w), i >= 2 {
                current += 10 * i
            } else if w == "hundred" { current = max(current, 1) * 100 } else if w == "thousand" {
                total += max(current, 1) * 1000
                current = 0
            } else {
                return nil
            }
        }
        return total + current
    }
}
