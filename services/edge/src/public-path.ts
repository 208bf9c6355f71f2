// `/{product_id}/{toolkit}/<route>`: the request path split into its three parts, without
// decoding anything but the product id (route parameters are decoded by the route matcher).
export interface PublicPath {
  productId: string;
  toolkit: string;
  /** The raw path below the toolkit, starting with `/`. */
  subPath: string;
}

/** Null when the path has no product and toolkit segment; throws URIError on bad encoding. */
export function splitPublicPath(path: string): PublicPath | null {
  const afterProduct = path.indexOf('/', 1);
  if (path.charCodeAt(0) !== 47 /* / */ || afterProduct <= 1) return null;
  const afterToolkit = path.indexOf('/', afterProduct + 1);
  if (afterToolkit <= afterProduct + 1) return null;
  const rawProduct = path.slice(1, afterProduct);
  return {
    productId: rawProduct.includes('%') ? decodeURIComponent(rawProduct) : rawProduct,
    toolkit: path.slice(afterProduct + 1, afterToolkit),
    subPath: path.slice(afterToolkit),
  };
}
