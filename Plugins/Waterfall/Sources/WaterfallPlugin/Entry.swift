import LayoutPluginSDK

/// The plugin's whole C surface: layoutd looks this symbol up and calls it once per load.
@c(layoutd_plugin_entry)
public func layoutdPluginEntry() -> UnsafeRawPointer { LayoutPlugin.export(WaterfallPluginLayout.self) }
