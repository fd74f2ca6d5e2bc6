import LayoutEngine
import LayoutGeometry
import Testing
