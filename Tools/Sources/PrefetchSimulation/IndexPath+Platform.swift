#if canImport(UIKit)
// On Apple's platforms `IndexPath.item`, `row` and `section` come from UIKit; elsewhere
// PrefetchCollectionView declares them.
import UIKit
#endif
