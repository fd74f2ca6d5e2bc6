import LayoutClient
import Testing
