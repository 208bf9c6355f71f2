// Products: the tenant every credential, member and resource belongs to.
export interface ProductRecord {
  id: string;
  name: string;
  createdAt: Date;
}

export interface ProductRepository {
  create(input: { name: string }): Promise<ProductRecord>;
  /** Undefined for unknown ids, including strings that are not ids at all. */
  findById(id: string): Promise<ProductRecord | undefined>;
}
