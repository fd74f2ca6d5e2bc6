import CLayoutPlugin
import LayoutProtocol
import StrategyCodec

/// Exports Swift strategies through layoutd's C plugin ABI.
///
/// A plugin's whole C surface is one function:
///
///     @c(layoutd_plugin_entry)
///     public func layoutdPluginEntry() -> UnsafeRawPointer {
///         LayoutPlugin.export(WaterfallLayout.self)
///     }
public enum LayoutPlugin {
    /// The plugin table describing `types`, built once per call and kept for the life of the
    /// process (layoutd calls the entry point once per load).
    public static func export(_ types: any PluginLayout.Type...) -> UnsafeRawPointer {
        let strategies = UnsafeMutablePointer<layoutd_strategy>.allocate(capacity: types.count)
        for (index, type) in types.enumerated() {
            (strategies + index).initialize(to: strategy(for: type))
        }
        let plugin = UnsafeMutablePointer<layoutd_plugin>.allocate(capacity: 1)
        plugin.initialize(
            to: layoutd_plugin(
                abi_version: LAYOUTD_PLUGIN_ABI_VERSION, strategy_count: types.count, strategies: strategies,
                self_check: { plugin, error in
                    guard let plugin, let error else { return 1 }
                    for index in 0..<plugin.pointee.strategy_count {
                        let type = TypeBox.from(plugin.pointee.strategies[index].context).type
                        if let problem = type.selfCheck() {
                            LayoutPlugin.copy("\(type.descriptor.name): \(problem)", to: error)
                            return 1
                        }
                    }
                    return 0
                }))
        return UnsafeRawPointer(plugin)
    }

    private static func strategy(for type: any PluginLayout.Type) -> layoutd_strategy {
        let descriptor = JSONWriter.string(StrategyJSON.descriptor(type.descriptor))
        let names = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(type.effectNames.count, 1))
        for (index, name) in type.effectNames.enumerated() { (names + index).initialize(to: UnsafePointer(duplicate(name))) }
        return layoutd_strategy(
            descriptor_json: UnsafePointer(duplicate(descriptor)),
            effect_count: type.effectNames.count,
            effect_names: UnsafePointer(names),
            context: UnsafeRawPointer(Unmanaged.passRetained(TypeBox(type)).toOpaque()),
            create: { context, parameters, info, errorBuffer in
                guard let parameters, let info, let errorBuffer else { return nil }
                let type = TypeBox.from(context).type
                do {
                    let resolved = try StrategyJSON.resolvedParameters(String(cString: parameters), for: type.descriptor)
                    let instance = try type.init(parameters: resolved)
                    let size = instance.defaultItemSize
                    info.pointee = layoutd_instance_info(
                        default_item_size: layoutd_size(width: size.width, height: size.height),
                        scrolls_horizontally: instance.scrollAxis == .horizontal ? 1 : 0,
                        offset_dependent: instance.isOffsetDependent ? 1 : 0)
                    return Unmanaged.passRetained(InstanceBox(instance, effectCount: type.effectNames.count)).toOpaque()
                } catch let refusal as PluginError {
                    LayoutPlugin.copy(refusal.message, to: errorBuffer)
                } catch {
                    LayoutPlugin.copy("\(error)", to: errorBuffer)
                }
                return nil
            },
            destroy: { instance in
                guard let instance else { return }
                Unmanaged<InstanceBox>.fromOpaque(instance).release()
            },
            layout: { instance, input, output in
                guard let instance, let input, let output else { return }
                let box = InstanceBox.from(instance)
                let view = PluginInput(input)
                var result = PluginOutput(output, input: view, effectCount: box.effectCount)
                box.instance.layout(view, into: &result)
            },
            viewport_changed: { instance, input, output in
                guard let instance, let input, let output else { return PluginUpdate.fullLayout.rawValue }
                let box = InstanceBox.from(instance)
                let view = PluginInput(input)
                var result = PluginOutput(output, input: view, effectCount: box.effectCount)
                return box.instance.viewportChanged(view, output: &result).rawValue
            },
            items_changed: { instance, input, changed, count, output in
                guard let instance, let input, let output else { return PluginUpdate.fullLayout.rawValue }
                let box = InstanceBox.from(instance)
                let view = PluginInput(input)
                var result = PluginOutput(output, input: view, effectCount: box.effectCount)
                let items = UnsafeBufferPointer(start: changed, count: count)
                return box.instance.itemsChanged(items, input: view, output: &result).rawValue
            },
            target_content_offset: { instance, input, output, velocityX, velocityY, x, y in
                guard let instance, let input, let output, let x, let y else { return }
                let box = InstanceBox.from(instance)
                let view = PluginInput(input)
                let target = box.instance.targetContentOffset(
                    proposed: Point(x: x.pointee, y: y.pointee), velocity: Point(x: velocityX, y: velocityY), input: view,
                    output: PluginOutput(UnsafeMutablePointer(mutating: output), input: view, effectCount: box.effectCount))
                x.pointee = target.x
                y.pointee = target.y
            })
    }

    /// A NUL-terminated copy that lives as long as the process.
    private static func duplicate(_ text: String) -> UnsafeMutablePointer<CChar> {
        let bytes = Array(text.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        copy.initialize(from: bytes, count: bytes.count)
        return copy
    }

    /// Writes `text` into a callback's error buffer, cut at a character boundary to fit.
    static func copy(_ text: String, to buffer: UnsafeMutablePointer<CChar>) {
        var bytes = Array(text.utf8.prefix(Int(LAYOUTD_PLUGIN_ERROR_CAPACITY) - 1))
        // Never end inside a multi-byte character: drop trailing continuation bytes and the
        // lead byte they belong to.
        if bytes.count == Int(LAYOUTD_PLUGIN_ERROR_CAPACITY) - 1, text.utf8.count > bytes.count {
            while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
            if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
        }
        for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
        buffer[bytes.count] = 0
    }
}

/// A strategy type kept in a strategy's `context`.
private final class TypeBox {
    let type: any PluginLayout.Type
    init(_ type: any PluginLayout.Type) { self.type = type }

    static func from(_ context: UnsafeRawPointer?) -> TypeBox {
        Unmanaged<TypeBox>.fromOpaque(context!).takeUnretainedValue()
    }
}

/// An instance as layoutd holds it.
private final class InstanceBox {
    let instance: any PluginLayout
    let effectCount: Int
    init(_ instance: any PluginLayout, effectCount: Int) {
        self.instance = instance
        self.effectCount = effectCount
    }

    static func from(_ pointer: UnsafeMutableRawPointer) -> InstanceBox {
        Unmanaged<InstanceBox>.fromOpaque(pointer).takeUnretainedValue()
    }
}
