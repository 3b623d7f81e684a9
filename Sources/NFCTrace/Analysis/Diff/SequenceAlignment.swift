/// Global sequence alignment (Needleman–Wunsch, linear gap cost) of two sequences of any
/// element types, used to line up operations, exchanges and NDEF records of two sessions so
/// that one extra element (a retry, an extra READ) shows as one gap instead of shifting
/// everything after it.
///
/// Scores are integers: `score(a, b)` is the gain of pairing `a` with `b` (nil = never pair
/// them), `gap` the (negative) cost of leaving one element unpaired. Ties are broken so that
/// gaps go as late as possible: of `[x]` against `[x, x]`, the first `x` of B is paired and
/// the second one is the extra.
///
/// Cost: O(n·m) time and one byte per cell while `(n+1)·(m+1) ≤ cellLimit`; longer sequences
/// are aligned greedily in linear time (pairs in order, looking ahead `lookahead` elements for
/// the next pairable one) so a huge session can never exhaust memory.
public enum SequenceAlignment {
  /// One column of an alignment: indices into A and B; nil on the side that has a gap.
  public struct Pair: Sendable, Equatable, CustomStringConvertible {
    /// Index into A, or nil when the element of B has no partner.
    public var a: Int?
    /// Index into B, or nil when the element of A has no partner.
    public var b: Int?

    /// A column.
    public init(_ a: Int?, _ b: Int?) {
      self.a = a
      self.b = b
    }

    /// `0=0`, `1-` (only in A), `-2` (only in B).
    public var description: String { "\(a.map(String.init) ?? "-")=\(b.map(String.init) ?? "-")" }
  }

  /// Largest DP table built (cells); above it the greedy aligner is used.
  public static let cellLimit = 4_000_000
  /// How far the greedy aligner looks ahead for a pairable element.
  public static let lookahead = 16

  /// Aligns `a` with `b`. Every index of each side appears exactly once, in order.
  ///
  /// `tiebreak` (0…`tiebreakMax` per pair, e.g. how alike the two elements' contents are)
  /// only decides among the alignments of equal `score` total: the highest sum of `tiebreak`
  /// over the pairs wins, so of two operations of one kind and outcome the one with the same
  /// commands is paired. Still O(n·m); the greedy fallback ignores it.
  public static func align<A, B>(
    _ a: [A], _ b: [B], gap: Int = -3, tiebreakMax: Int = 0,
    tiebreak: ((A, B) -> Int)? = nil, score: (A, B) -> Int?
  ) -> [Pair] {
    if (a.count + 1) * (b.count + 1) > cellLimit { return greedy(a, b, score: score) }
    guard let tiebreak, tiebreakMax > 0 else {
      return needlemanWunsch(a, b, gap: gap, score: score)
    }
    // Scores scaled so that all the tie-breaks of one alignment together weigh less than one
    // point of score: the sum is lexicographic (score first, then tie-break).
    let scale = tiebreakMax * min(a.count, b.count) + 1
    return needlemanWunsch(a, b, gap: gap * scale) { x, y in
      score(x, y).map { $0 * scale + min(max(tiebreak(x, y), 0), tiebreakMax) }
    }
  }

  // Traceback moves stored per cell.
  private static let diagonal: UInt8 = 1
  private static let up: UInt8 = 2  // element of A unpaired
  private static let left: UInt8 = 3  // element of B unpaired

  private static func needlemanWunsch<A, B>(
    _ a: [A], _ b: [B], gap: Int, score: (A, B) -> Int?
  ) -> [Pair] {
    let n = a.count
    let m = b.count
    let width = m + 1
    var moves = [UInt8](repeating: 0, count: (n + 1) * width)
    var previous = [Int](repeating: 0, count: width)
    var row = [Int](repeating: 0, count: width)
    for j in 0...m {
      previous[j] = j * gap
      moves[j] = left
    }
    for i in stride(from: 1, through: n, by: 1) {
      row[0] = i * gap
      moves[i * width] = up
      for j in stride(from: 1, through: m, by: 1) {
        // Preference on ties: A-gap, then B-gap, then the pair. The traceback runs backwards,
        // so gaps go as late as possible, and in a run of gaps B's come before A's (a retry
        // in B is listed right after the attempt it repeats).
        var best = previous[j] + gap
        var move = up
        let fromLeft = row[j - 1] + gap
        if fromLeft > best {
          best = fromLeft
          move = left
        }
        if let s = score(a[i - 1], b[j - 1]), previous[j - 1] + s > best {
          best = previous[j - 1] + s
          move = diagonal
        }
        row[j] = best
        moves[i * width + j] = move
      }
      swap(&previous, &row)
    }
    return traceback(moves, n: n, m: m)
  }

  private static func traceback(_ moves: [UInt8], n: Int, m: Int) -> [Pair] {
    var out: [Pair] = []
    out.reserveCapacity(max(n, m))
    var i = n
    var j = m
    while i > 0 || j > 0 {
      let move = i == 0 ? left : j == 0 ? up : moves[i * (m + 1) + j]
      switch move {
      case diagonal:
        i -= 1
        j -= 1
        out.append(Pair(i, j))
      case up:
        i -= 1
        out.append(Pair(i, nil))
      default:
        j -= 1
        out.append(Pair(nil, j))
      }
    }
    return out.reversed()
  }

  /// Linear-time fallback: pairs elements in order; when the heads cannot pair, skips on the
  /// side whose next pairable element is nearer (within `lookahead`).
  private static func greedy<A, B>(_ a: [A], _ b: [B], score: (A, B) -> Int?) -> [Pair] {
    var out: [Pair] = []
    var i = 0
    var j = 0
    while i < a.count && j < b.count {
      if score(a[i], b[j]) != nil {
        out.append(Pair(i, j))
        i += 1
        j += 1
        continue
      }
      let skipB = (1...lookahead).first { j + $0 < b.count && score(a[i], b[j + $0]) != nil }
      let skipA = (1...lookahead).first { i + $0 < a.count && score(a[i + $0], b[j]) != nil }
      if let sb = skipB, sb <= (skipA ?? Int.max) {
        for k in 0..<sb { out.append(Pair(nil, j + k)) }
        j += sb
      } else if let sa = skipA {
        for k in 0..<sa { out.append(Pair(i + k, nil)) }
        i += sa
      } else {
        out.append(Pair(i, nil))
        out.append(Pair(nil, j))
        i += 1
        j += 1
      }
    }
    while i < a.count {
      out.append(Pair(i, nil))
      i += 1
    }
    while j < b.count {
      out.append(Pair(nil, j))
      j += 1
    }
    return out
  }
}
