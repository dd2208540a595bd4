"""CTest generator.formcache: the model's forms kept between processes (ptxcts_gen.formcache): a second process
reads what the first enumerated, a torn or foreign file is a miss, an edit of the package is another name, a cache
that cannot be written costs nothing but the enumeration, and load_forms gives exactly model.all_forms()."""
import os
import pickle
import shutil
import tempfile
import unittest
from unittest import mock

from ptxcts_gen import formcache, load_forms
from ptxcts_gen.model import all_forms


class Counted:
    def __init__(self, value):
        self.value, self.calls = value, 0

    def __call__(self):
        self.calls += 1
        return self.value


class FormCache(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptxcts-formcache-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.env = mock.patch.dict(os.environ, {"PTXCTS_FORMS_CACHE": self.dir})
        self.env.start()
        self.addCleanup(self.env.stop)

    def test_the_second_load_reads_what_the_first_enumerated(self):
        first = Counted(["a", "b"])
        self.assertEqual(formcache.load(first), ["a", "b"])
        again = Counted(["other"])
        self.assertEqual(formcache.load(again), ["a", "b"])
        self.assertEqual((first.calls, again.calls), (1, 0))

    def test_a_torn_file_is_a_miss_and_is_written_again(self):
        formcache.load(Counted([1]))
        path = os.path.join(self.dir, formcache.digest() + ".pickle")
        with open(path, "r+b") as f:
            f.truncate(3)
        fresh = Counted([2])
        self.assertEqual(formcache.load(fresh), [2])
        with open(path, "rb") as f:
            self.assertEqual(pickle.load(f), [2])

    def test_an_edit_of_the_package_is_another_name(self):
        before = formcache.digest()
        with mock.patch.object(formcache, "HERE", self.dir):   # a package of one file, edited
            with open(os.path.join(self.dir, "model.py"), "w") as f:
                f.write("A = 1\n")
            one = formcache.digest()
            with open(os.path.join(self.dir, "model.py"), "w") as f:
                f.write("A = 2\n")
            self.assertNotEqual(one, formcache.digest())
            with open(os.path.join(self.dir, "model.py"), "w") as f:
                f.write("A = 1\n")
            self.assertEqual(one, formcache.digest(), "the same files give the same name")
        self.assertEqual(before, formcache.digest())

    def test_only_the_newest_files_stay(self):
        for n in range(formcache.KEEP + 2):
            with mock.patch.object(formcache, "digest", lambda n=n: f"d{n}"):
                formcache.load(Counted([n]))
        self.assertEqual(len([e for e in os.listdir(self.dir) if e.endswith(".pickle")]), formcache.KEEP)

    def test_an_unwritable_or_relative_folder_only_enumerates(self):
        blocker = os.path.join(self.dir, "afile")
        open(blocker, "w").close()
        for where in (os.path.join(blocker, "forms"), "relative/forms"):
            with mock.patch.dict(os.environ, {"PTXCTS_FORMS_CACHE": where}):
                e = Counted([3])
                self.assertEqual((formcache.load(e), formcache.load(e)), ([3], [3]))
                self.assertEqual(e.calls, 2)
        self.assertFalse(os.path.exists(os.path.join(os.getcwd(), "relative")))

    def test_off_turns_it_off(self):
        with mock.patch.dict(os.environ, {"PTXCTS_FORMS_CACHE": "off"}):
            e = Counted([4])
            formcache.load(e)
            formcache.load(e)
        self.assertEqual(e.calls, 2)
        self.assertEqual(os.listdir(self.dir), [])

    def test_load_forms_is_the_models_enumeration(self):
        fresh = all_forms()
        for _ in range(2):   # a miss, then a hit
            cached = load_forms()
            self.assertEqual([f.id for f in cached], [f.id for f in fresh])
            self.assertEqual([vars(f) for f in cached], [vars(f) for f in fresh])
        one = "cp.async.bulk.prefetch"
        self.assertEqual([f.id for f in load_forms(one)], [f.id for f in all_forms(one)])


if __name__ == "__main__":
    unittest.main()
