//! `--show invariant` as JSON (docs/output.md, "`invariant`"), written
//! straight to text with serde rather than built as a `serde_json::Value`
//! first: a fixpoint of hundreds of threads renders to tens of MB, and a
//! value tree of it took ten times that (refine on simple-bool(400): 690
//! MiB, against 30 MiB for the search).

use super::show_local;
use crate::engine::result::{
    AbstractProduct, ClassProduct, GuaranteeEdge, Invariant, InvariantForm, ReachFact, Store,
    ThreadClass, ThreadSummary,
};
use serde::{Serialize, Serializer};

/// The invariant's JSON object.
pub(super) struct InvariantJson<'a>(pub(super) &'a Invariant);

impl Serialize for InvariantJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0.form {
            InvariantForm::ThreadModular(threads) => ThreadModularJson {
                threads: List(threads, ThreadJson),
            }
            .serialize(s),
            InvariantForm::Cartesian {
                products,
                exceptions,
            } => CartesianJson {
                products: List(products, ProductJson),
                exceptions: List(exceptions, ProductJson),
            }
            .serialize(s),
            InvariantForm::CartesianClasses {
                classes,
                products,
                exceptions,
            } => ClassesJson {
                classes: List(classes, ClassJson),
                products: List(products, ClassProductJson),
                exceptions: List(exceptions, ClassProductJson),
            }
            .serialize(s),
            InvariantForm::Control {
                classes,
                data_locations,
                products,
            } => ControlJson {
                classes: List(classes, |(template, classes)| TemplateClassesJson {
                    template,
                    classes,
                }),
                data_locations,
                products: List(products, ProductJson),
            }
            .serialize(s),
            InvariantForm::NotShown(reason) => NotShownJson { not_shown: reason }.serialize(s),
        }
    }
}

#[derive(Serialize)]
struct ThreadModularJson<'a> {
    threads: List<'a, ThreadSummary, ThreadJson<'a>>,
}

#[derive(Serialize)]
struct CartesianJson<'a> {
    products: List<'a, AbstractProduct, ProductJson<'a>>,
    exceptions: List<'a, AbstractProduct, ProductJson<'a>>,
}

#[derive(Serialize)]
struct ClassesJson<'a> {
    classes: List<'a, ThreadClass, ClassJson<'a>>,
    products: List<'a, ClassProduct, ClassProductJson<'a>>,
    exceptions: List<'a, ClassProduct, ClassProductJson<'a>>,
}

#[derive(Serialize)]
struct ControlJson<'a> {
    classes: List<'a, (String, Vec<Vec<String>>), TemplateClassesJson<'a>>,
    data_locations: &'a [String],
    products: List<'a, AbstractProduct, ProductJson<'a>>,
}

#[derive(Serialize)]
struct NotShownJson<'a> {
    not_shown: &'a str,
}

#[derive(Serialize)]
struct TemplateClassesJson<'a> {
    template: &'a str,
    classes: &'a [Vec<String>],
}

/// One thread's R and G.
struct ThreadJson<'a>(&'a ThreadSummary);

impl Serialize for ThreadJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Fields<'a> {
            thread: &'a str,
            reach: List<'a, ReachFact, FactJson<'a>>,
            guarantee: List<'a, GuaranteeEdge, EdgeJson<'a>>,
        }
        Fields {
            thread: &self.0.thread,
            reach: List(&self.0.reach, |f| FactJson {
                global: Obj(&f.global),
                local: Obj(&f.local),
            }),
            guarantee: List(&self.0.guarantee, |e| EdgeJson {
                from: Obj(&e.from),
                to: Obj(&e.to),
            }),
        }
        .serialize(s)
    }
}

#[derive(Serialize)]
struct FactJson<'a> {
    global: Obj<'a>,
    local: Obj<'a>,
}

#[derive(Serialize)]
struct EdgeJson<'a> {
    from: Obj<'a>,
    to: Obj<'a>,
}

/// `{"global": {…}, "threads": [["cs", "nc(i=1)"], …]}`: per thread its
/// local stores in compact form.
struct ProductJson<'a>(&'a AbstractProduct);

impl Serialize for ProductJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Fields<'a> {
            global: Obj<'a>,
            threads: List<'a, std::sync::Arc<[Store]>, Locals<'a>>,
        }
        Fields {
            global: Obj(&self.0.global),
            threads: List(&self.0.threads, |c| Locals(c)),
        }
        .serialize(s)
    }
}

struct ClassJson<'a>(&'a ThreadClass);

impl Serialize for ClassJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Fields<'a> {
            name: &'a str,
            threads: &'a [String],
        }
        Fields {
            name: &self.0.name,
            threads: &self.0.threads,
        }
        .serialize(s)
    }
}

/// `{"global": {…}, "classes": [[{"count": k, "locals": […]}, …], …]}`.
struct ClassProductJson<'a>(&'a ClassProduct);

impl Serialize for ClassProductJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Fields<'a> {
            global: Obj<'a>,
            classes: List<'a, Vec<Group>, List<'a, Group, GroupJson<'a>>>,
        }
        #[derive(Serialize)]
        struct GroupJson<'a> {
            count: u64,
            locals: Locals<'a>,
        }
        Fields {
            global: Obj(&self.0.global),
            classes: List(&self.0.classes, |groups| {
                List(groups, |(count, ls)| GroupJson {
                    count: *count,
                    locals: Locals(ls),
                })
            }),
        }
        .serialize(s)
    }
}

/// `count` threads of a class taking the set of local stores.
type Group = (u64, Vec<Store>);

/// A set of local stores as their compact names: `["cs", "nc(i=1)"]`.
struct Locals<'a>(&'a [Store]);

impl Serialize for Locals<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(show_local))
    }
}

/// A store as a JSON object, its variables in declaration order.
pub(super) struct Obj<'a>(pub(super) &'a Store);

impl Serialize for Obj<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// A slice as a JSON array, each element serialized as `wrap` makes it.
struct List<'a, T, W>(&'a [T], fn(&'a T) -> W);

impl<'a, T, W: Serialize> Serialize for List<'a, T, W> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(self.1))
    }
}
