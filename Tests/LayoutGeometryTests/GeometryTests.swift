import LayoutGeometry
import Testing

@Suite("geometry")
struct GeometryTests {
    @Test("rects that only touch along an edge do not intersect")
    func touchingRectsDoNotIntersect() {
        let left = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(!left.intersects(Rect(x: 10, y: 0, width: 10, height: 10)))
        #expect(!left.intersects(Rect(x: 0, y: 10, width: 10, height: 10)))
        #expect(left.intersects(Rect(x: 9.5, y: 9.5, width: 10, height: 10)))
    }

    @Test("a zero-width frame inside a rect intersects it")
    func zeroWidthInsideIntersects() {
        let rect = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(rect.intersects(Rect(x: 5, y: 2, width: 0, height: 3)))
        #expect(!rect.intersects(Rect(x: 10, y: 2, width: 0, height: 3)))
    }

    @Test("transposing twice gives the original")
    func transposeRoundTrip() {
        let rect = Rect(x: 1, y: 2, width: 3, height: 4)
        #expect(rect.transposed == Rect(x: 2, y: 1, width: 4, height: 3))
        #expect(rect.transposed.transposed == rect)
        let insets = EdgeInsets(top: 1, left: 2, bottom: 3, right: 4)
        #expect(insets.transposed == EdgeInsets(top: 2, left: 1, bottom: 4, right: 3))
    }

    @Test("logical coordinates map to x,y for vertical and y,x for horizontal")
    func axisMapping() {
        #expect(Axis.vertical.rect(cross: 1, main: 2, crossExtent: 3, mainExtent: 4) == Rect(x: 1, y: 2, width: 3, height: 4))
        #expect(Axis.horizontal.rect(cross: 1, main: 2, crossExtent: 3, mainExtent: 4) == Rect(x: 2, y: 1, width: 4, height: 3))
        let insets = EdgeInsets(top: 1, left: 2, bottom: 3, right: 4)
        let vertical = Axis.vertical.logical(insets)
        #expect((vertical.crossLeading, vertical.crossTrailing, vertical.mainLeading, vertical.mainTrailing) == (2, 4, 1, 3))
        let horizontal = Axis.horizontal.logical(insets)
        #expect((horizontal.crossLeading, horizontal.crossTrailing, horizontal.mainLeading, horizontal.mainTrailing) == (1, 3, 2, 4))
    }

    @Test("pixel rounding snaps edges so touching frames keep touching")
    func pixelRoundingKeepsEdges() {
        let a = Rect(x: 0, y: 0, width: 137.3, height: 10)
        let b = Rect(x: 137.3, y: 0, width: 100.4, height: 10)
        let ra = a.roundedToPixels(scale: 3)
        let rb = b.roundedToPixels(scale: 3)
        #expect(ra.maxX == rb.minX)
        #expect(abs(ra.maxX - 137.3) <= 1.0 / 6)
        #expect(137.25.roundedToPixels(scale: 2) == 137.5)
    }

    @Test("size tolerance is strict per dimension")
    func sizeTolerance() {
        let size = Size(width: 100, height: 50)
        #expect(size.isClose(to: Size(width: 100.49, height: 49.51), tolerance: 0.5))
        #expect(!size.isClose(to: Size(width: 100.5, height: 50), tolerance: 0.5))
        #expect(!Size(width: -1, height: 0).isValidExtent)
        #expect(!Size(width: .nan, height: 0).isValidExtent)
        #expect(!Size(width: .infinity, height: 0).isValidExtent)
        #expect(Size.zero.isValidExtent)
    }

    @Test("transforms concatenate in application order")
    func transformConcatenation() {
        let scaleThenMove = Transform2D.scale(x: 2, y: 3).concatenating(.translation(x: 10, y: 20))
        #expect(scaleThenMove.apply(to: Point(x: 1, y: 1)) == Point(x: 12, y: 23))
        #expect(Transform2D.identity.isIdentity)
        #expect(!scaleThenMove.isIdentity)
    }
}
