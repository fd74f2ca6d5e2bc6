enum SVGRendererPlaceholder {}
